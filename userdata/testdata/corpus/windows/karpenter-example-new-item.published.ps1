New-Item -Path 'C:\temp\' -ItemType Directory
New-Item -Path 'C:\temp\sample.txt' -ItemType File