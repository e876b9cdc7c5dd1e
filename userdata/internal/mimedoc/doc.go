// Package mimedoc writes the MIME multipart documents userdata's Render
// produces (a deterministic multipart/mixed writer whose boundary occurs in
// no part) and splits the custom MIME userData Render copies into them:
// parts in document order with their media type and the line their body
// starts on. It is Render's own, strict reading; Lint reads MIME as each
// family's consumer does: cloud-init with Python's email parser
// (internal/pyemail, internal/cloudinit), nodeadm with Go's net/mail and
// mime/multipart (internal/nodeadm).
//
// Grammar: a header block ending at the first empty line; for
// multipart/*, a body cut at lines "--boundary" (optionally followed by
// "--" to close, then whitespace); a missing close delimiter ends the last
// part at the end of the input.
//
// Every function is pure and safe for concurrent use.
package mimedoc
