// Package edit reads the small programs userData scripts use to edit the
// files a node's boot reads: sed scripts ([ParseSed]) and jq filters
// ([ParseJQ]). It models the subset people write for that, statically and
// exactly, and refuses the rest with an error saying what is not
// followed, so that a caller can say "unresolved" instead of guessing.
//
// sed (GNU sed 4.8, the one on AL2): commands separated by newlines (and,
// after s, by ';'): /REGEX/a TEXT, /REGEX/i TEXT and /REGEX/c TEXT (GNU's
// one-line form, or "a\" followed by the text on the next lines), and
// s/PATTERN/REPLACEMENT/FLAGS with any delimiter. [Sed.Apply] runs a
// script over known text when every pattern and address is a literal
// string (with ^ and $ anchors), which is what a caller can compute
// without a regular-expression engine that matches sed's.
//
// jq (1.6, as on AL2): a pipeline of assignments PATH = VALUE and
// PATH += VALUE, ". += OBJECT", del(PATH, ...) and ".", where PATH is
// .key, ."key", .["key"] or a chain of them and VALUE is a JSON value in
// jq's syntax (object keys may be bare identifiers) or $name from --arg /
// --argjson.
//
// Every function is pure and safe for concurrent use.
package edit
