package nodeadm

import (
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// KubeletArgs follows the merged kubelet flags through nodeadm's
// environment file (NODEADM_KUBELET_ARGS=<flags joined by spaces>) and the
// unbraced $NODEADM_KUBELET_ARGS in kubelet.service's ExecStart, returning
// the kubelet's arguments. hazard is set when the flags hold a backslash,
// a newline or a leading quote, which nodeadm writes unescaped; cut when
// a newline ends the value early, so that what the kubelet gets is not
// known.
func KubeletArgs(flags []string) (args []string, hazard, cut bool) {
	joined := strings.Join(flags, " ")
	if strings.ContainsAny(joined, "\\\n") || strings.HasPrefix(joined, "'") || strings.HasPrefix(joined, "\"") {
		hazard = true
		if strings.Contains(joined, "\n") {
			return nil, true, true
		}
	}
	args, _ = systemd.Split(systemd.EnvFileValue(joined), false, true)
	return args, hazard, false
}
