// Package mimedoc reads and writes the MIME multipart documents cloud-init
// and nodeadm take as userData: leaf parts in document order with their
// media type, file name, nesting depth and the line their body starts on,
// and a deterministic multipart/mixed writer whose boundary occurs in no
// part.
//
// Grammar (RFC 2046 as cloud-init's and Go's parsers read it): a header
// block ending at the first empty line; for multipart/*, a body cut at
// lines "--boundary" (optionally followed by "--" to close, then
// whitespace); a missing close delimiter ends the last part at the end of
// the input.
//
// Every function is pure and safe for concurrent use.
package mimedoc
