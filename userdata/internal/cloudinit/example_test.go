package cloudinit_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/cloudinit"
)

// Scripts run in file-name order, whatever their order in the document.
func ExamplePlan() {
	doc := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n" +
		"--b\nContent-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"zz-join.sh\"\n\n#!/bin/bash\necho join\n" +
		"--b\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho setup\n--b--\n"
	r, err := cloudinit.Plan([]byte(doc))
	scripts := r.Scripts
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range scripts {
		fmt.Println(s.Name)
	}
	// Output:
	// part-002
	// zz-join.sh
}
