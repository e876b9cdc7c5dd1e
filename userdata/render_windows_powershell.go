package userdata

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/powershell"
)

// renderWindows writes a <powershell> block: the custom PowerShell, then
// the Start-EKSBootstrap.ps1 call with every argument a verbatim string.
func (p *plan) renderWindows() ([]byte, error) {
	flags, err := p.kubeletFlags()
	if err != nil {
		return nil, err
	}
	args := [][2]string{
		{"-EKSClusterName", p.cfg.ClusterName},
		{"-APIServerEndpoint", p.cfg.APIServerEndpoint},
		{"-Base64ClusterCA", p.cfg.CABundle},
	}
	if len(flags) > 0 {
		args = append(args, [2]string{"-KubeletExtraArgs", strings.Join(flags, " ")})
	}
	if len(p.cfg.Kubelet.ClusterDNS) > 0 {
		args = append(args, [2]string{"-DNSClusterIP", p.cfg.Kubelet.ClusterDNS[0]})
	}
	if err := checkCustomPowerShell(p.custom); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("<powershell>\n")
	if len(bytes.TrimSpace(p.custom)) > 0 {
		b.Write(p.custom)
		if !bytes.HasSuffix(p.custom, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	b.WriteString(`[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"` + "\n")
	b.WriteString("& $EKSBootstrapScriptFile")
	for _, a := range args {
		q, err := powershell.Quote(a[1])
		if err != nil {
			return nil, fmt.Errorf("userdata: Start-EKSBootstrap.ps1 %s: %s", a[0], err)
		}
		b.WriteString(" " + a[0] + " " + q)
	}
	b.WriteString("\n</powershell>\n")
	return b.Bytes(), nil
}

// checkCustomPowerShell makes sure custom PowerShell cannot change the
// bootstrap call that follows it: no <powershell> tags, nothing left open
// (a string, comment, bracket or line continuation would swallow the
// call), no top-level exit before it, and no bootstrap call of its own.
func checkCustomPowerShell(custom []byte) error {
	if len(bytes.TrimSpace(custom)) == 0 {
		return nil
	}
	lower := bytes.ToLower(custom)
	if bytes.Contains(lower, []byte("</powershell>")) || bytes.Contains(lower, []byte("<powershell>")) {
		return fmt.Errorf("userdata: Config.CustomUserData contains a <powershell> tag; pass the PowerShell without the tags, Render adds them")
	}
	toks, err := powershell.Lex(string(custom))
	if err != nil {
		return fmt.Errorf("userdata: Config.CustomUserData is not complete PowerShell (%v); anything left open would swallow the bootstrap call that follows it", err)
	}
	if bytes.HasSuffix(bytes.TrimRight(custom, "\r\n"), []byte("`")) {
		return fmt.Errorf("userdata: Config.CustomUserData ends in a backtick, a PowerShell line continuation that would join the bootstrap call that follows it to its last line; remove it")
	}
	w := newEKSWalker()
	w.Walk(toks)
	if len(w.Calls) > 0 {
		return fmt.Errorf("userdata: Config.CustomUserData calls Start-EKSBootstrap.ps1 on line %d; Render adds that call, and a second one registers the node with the wrong taints, so remove it", w.Calls[0].Line)
	}
	if w.Stopped {
		return fmt.Errorf("userdata: Config.CustomUserData stops the script on line %d (exit, return, throw or break), so the bootstrap call after it would never run", w.StopLine)
	}
	if len(w.Opaque) > 0 {
		return fmt.Errorf("userdata: Config.CustomUserData line %d: %s; Render cannot tell that it neither runs the bootstrap script nor starts the kubelet before Render's call, so remove it", w.Opaque[0].Line, w.Opaque[0].What)
	}
	return nil
}
