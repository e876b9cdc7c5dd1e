package powershell

import "strings"

// WindowsArgv splits a command line the way Go programs on Windows (the
// kubelet among them) build os.Args: spaces and tabs separate arguments,
// double quotes group and are removed, "" inside quotes is a literal quote,
// and backslashes are literal except before a double quote, where 2n
// backslashes give n and 2n+1 give n and a literal quote.
func WindowsArgv(cmd string) []string {
	var args []string
	for len(cmd) > 0 {
		if cmd[0] == ' ' || cmd[0] == '\t' {
			cmd = cmd[1:]
			continue
		}
		var arg []byte
		inQuote := false
		slashes := 0
		i := 0
	scan:
		for ; i < len(cmd); i++ {
			c := cmd[i]
			switch c {
			case ' ', '\t':
				if !inQuote {
					break scan
				}
			case '"':
				arg = append(arg, strings.Repeat(`\`, slashes/2)...)
				if slashes%2 == 0 {
					if inQuote && i+1 < len(cmd) && cmd[i+1] == '"' {
						arg = append(arg, '"')
						i++
					}
					inQuote = !inQuote
				} else {
					arg = append(arg, '"')
				}
				slashes = 0
				continue
			case '\\':
				slashes++
				continue
			}
			arg = append(arg, strings.Repeat(`\`, slashes)...)
			slashes = 0
			arg = append(arg, c)
		}
		arg = append(arg, strings.Repeat(`\`, slashes)...)
		args = append(args, string(arg))
		cmd = cmd[i:]
	}
	return args
}
