package powershell_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/powershell"
)

func ExampleWalker() {
	toks, err := powershell.Lex("$x = '--register-with-taints=k:NoSchedule'\n& C:\\EKS\\Start-EKSBootstrap.ps1 c -KubeletExtraArgs $x\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	w := powershell.NewWalker("Start-EKSBootstrap.ps1", []string{"EKSClusterName", "KubeletExtraArgs"}, []string{"EKSClusterName"})
	w.Walk(toks)
	v, known := w.Eval(w.Calls[0].Params["KubeletExtraArgs"])
	fmt.Println(v, known)
	q, _ := powershell.Quote("it's")
	fmt.Println(q)
	// Output:
	// --register-with-taints=k:NoSchedule true
	// 'it''s'
}
