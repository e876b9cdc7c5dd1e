package mimedoc_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
)

func ExampleParse() {
	doc := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hi\n--//--\n"
	parts, err := mimedoc.Parse([]byte(doc), 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s at line %d: %q\n", parts[0].MediaType, parts[0].Line, parts[0].Body)
	// Output: text/x-shellscript at line 7: "#!/bin/bash\necho hi"
}
