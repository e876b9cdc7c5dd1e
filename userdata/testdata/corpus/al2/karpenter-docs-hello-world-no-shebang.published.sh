echo "Hello world"
