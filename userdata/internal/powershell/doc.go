// Package powershell is a small PowerShell lexer and statement walker:
// enough to find assignments and calls of one script in the <powershell>
// block of Windows userData, to evaluate string literals exactly, and to
// prove that a script is lexically complete (no open string, comment,
// bracket or line continuation). It also holds the quoting rule for
// verbatim strings ([Quote]) and the Windows command-line split
// ([WindowsArgv]).
//
// Every function is pure and safe for concurrent use; a [Walker] is used by
// one goroutine for one script.
package powershell
