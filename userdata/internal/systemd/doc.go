// Package systemd emulates the parts of systemd that stand between a boot
// agent and the kubelet's argv: the value of an Environment= line, one line
// of an EnvironmentFile=, the splitting of an unbraced $VAR in ExecStart=,
// and the directives of a unit file or drop-in ([ParseUnit]). It follows
// current systemd (src/basic/extract-word.c extract_first_word,
// src/basic/escape.c cunescape_one,
// src/basic/env-file.c parse_env_file); older releases differ only on
// input callers must treat as unresolved anyway (newlines, '%').
//
// Every function is pure and safe for concurrent use.
package systemd
