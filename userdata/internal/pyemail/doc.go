// Package pyemail reads a MIME message the way Python's email package does
// when cloud-init reads userData with email.message_from_string
// (cloudinit/user_data.py convert_string, cloudinit/util.py
// message_from_string): the lenient feed parser that never fails, records
// defects instead, and takes a line that is not a header for the first
// line of the body.
//
// The rules, from CPython's Lib/email (3.11 as Debian 12 ships it, and
// 2.7 where [Python2] differs):
//
//   - Lines end at "\r\n", "\r" or "\n" (feedparser.BufferedSubFile).
//   - A header block is the lines matching headerRE, a name of printable
//     characters other than ':' and then ':', a continuation line starting
//     with a space or tab, or "From "; it ends at a blank line, which is
//     dropped, or at the first other line, which starts the body. Python 3
//     accepts an empty name (a line starting with ':', then ignored);
//     Python 2.7 does not, and takes that line for the body.
//   - A multipart's boundary is its Content-Type's boundary parameter as
//     get_boundary reads it; a delimiter line is "--boundary", optionally
//     "--" to close, then spaces or tabs. The lines before the first
//     delimiter are the preamble; consecutive delimiters make no empty
//     part; the line end before a delimiter belongs to it; a delimiter of
//     an enclosing multipart ends an inner part. Without a boundary, or
//     without any delimiter, the multipart has a text payload and no parts.
//   - message/* parts hold a nested message.
//
// [Parse] never fails. [Message.ContentType], [Message.Param],
// [Message.Boundary], [Message.Filename] and [Message.Payload] are
// Message's get_content_type, get_param, get_boundary, get_filename and
// get_payload(decode=True) followed by cloud-init's fully_decoded_payload.
//
// Every function is pure and safe for concurrent use.
package pyemail
