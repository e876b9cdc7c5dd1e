package powershell

import (
	"strings"
	"testing"
)

// FuzzLex checks that lexing and walking any script never panics and
// that tokens stay on lines of the script.
func FuzzLex(f *testing.F) {
	for _, s := range []string{
		"& $env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1 -EKSClusterName 'c' -KubeletExtraArgs '--register-with-taints=a:NoSchedule'\n",
		"$x = @\"\n$(Get-Date) `\"\n\"@\n& x.ps1 -K:$x\n",
		"<# comment #> if ($a) { exit } else { 'b' }; [string]$s = \u2018q\u2019\u2019\u2019\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := Lex(src)
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, tok := range toks {
			if tok.Line() < 1 || tok.Line() > lines {
				t.Fatalf("token %q on line %d of %d", tok.Raw(), tok.Line(), lines)
			}
		}
		w := NewWalker("x.ps1", []string{"EKSClusterName", "KubeletExtraArgs"}, []string{"EKSClusterName"})
		w.Walk(toks)
		_ = WindowsArgv(src)
	})
}
