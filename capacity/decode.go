package capacity

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"
)

// decodeSnapshot reads and validates a whole snapshot (see
// [Cache.Snapshot] for the encoding). Any JSON spelling of it is read:
// whitespace, members in any order, escaped characters in strings.
// Integers must be written as integers (no fraction or exponent). An entry
// listed twice is allowed and counts as its better figure, as if merged
// twice.
func decodeSnapshot(data []byte, limit int) (*decoded, error) {
	if len(data) > limit {
		return nil, fmt.Errorf("capacity: the snapshot is %d bytes, more than MaxSnapshotSize (%d); it was not written by Cache.Snapshot", len(data), limit)
	}
	d := decoder{data: data, names: make(map[string]int32)}
	s, err := d.snapshot()
	if err != nil {
		if v, ok := versionOf(data); ok && v != SnapshotVersion {
			return nil, versionError(v)
		}
		return nil, err
	}
	return s, nil
}

// decoded is a snapshot as read and checked. Its entries name their
// instance type and AMI by index, so that the slice of 100,000 of them
// holds no pointer for the collector to follow.
type decoded struct {
	names, amis []string
	entries     []packed
}

type packed struct {
	name, ami        int32
	memory, observed int64
}

func (s *decoded) record(e packed) record {
	return record{key: key{s.names[e.name], s.amis[e.ami]}, memory: e.memory, observed: e.observed}
}

// versionOf finds the version of a snapshot the decoder refused, so that
// a newer encoding is reported as newer rather than as corrupted.
func versionOf(data []byte) (int64, bool) {
	var v struct{ Version *int64 }
	if json.Unmarshal(data, &v) != nil || v.Version == nil {
		return 0, false
	}
	return *v.Version, true
}

func versionError(v int64) error {
	if v > SnapshotVersion {
		return fmt.Errorf("capacity: the snapshot is version %d, newer than the version %d this library reads; upgrade ec2select on this replica, or merge snapshots from replicas of the same version", v, SnapshotVersion)
	}
	return fmt.Errorf("capacity: the snapshot has version %d; only version %d exists; merge a snapshot written by Cache.Snapshot", v, SnapshotVersion)
}

// decoder reads one snapshot. names interns instance-type names, which
// repeat under every AMI: each name's index in list.
type decoder struct {
	data  []byte
	pos   int
	names map[string]int32
	list  []string
}

func (d *decoder) errorf(format string, args ...any) error {
	where := fmt.Sprintf("byte %d", d.pos)
	if d.pos >= len(d.data) {
		where = "the end"
	}
	return fmt.Errorf("capacity: the snapshot is truncated or corrupted at %s: %s; merge a snapshot written by Cache.Snapshot", where, fmt.Sprintf(format, args...))
}

// parts are the members of a snapshot as read, before they are checked
// against each other.
type parts struct {
	version int64
	sum     uint32
	amis    []string
	entries []packed // AMI indices are checked once amis is read
	seen    [4]bool  // version, sum, amis, entries
}

var members = [4]string{"version", "sum", "amis", "entries"}

// snapshot reads the top-level object.
func (d *decoder) snapshot() (*decoded, error) {
	var p parts
	if err := d.expect('{'); err != nil {
		return nil, err
	}
	for first := true; !d.consume('}'); first = false {
		if !first {
			if err := d.expect(','); err != nil {
				return nil, err
			}
		}
		if err := d.member(&p); err != nil {
			return nil, err
		}
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	if err := p.check(d.list); err != nil {
		return nil, err
	}
	return &decoded{names: d.list, amis: p.amis, entries: p.entries}, nil
}

// member reads one member of the top-level object into p.
func (d *decoder) member(p *parts) error {
	name, err := d.memberName()
	if err != nil {
		return err
	}
	i := 0
	for i < len(members) && members[i] != name {
		i++
	}
	switch {
	case i == len(members):
		return d.errorf("unknown member %q; version %d has %q, %q, %q and %q", name, SnapshotVersion, members[0], members[1], members[2], members[3])
	case p.seen[i]:
		return d.errorf("member %q appears twice", name)
	}
	p.seen[i] = true
	switch i {
	case 0:
		p.version, err = d.integer("version")
	case 1:
		p.sum, err = d.sum()
	case 2:
		p.amis, err = d.amis()
	default:
		p.entries, err = d.entries()
	}
	return err
}

// check checks what only the whole object shows: the members, the
// version, each entry's AMI index, and the sum.
func (p *parts) check(names []string) error {
	for i, name := range members {
		if !p.seen[i] {
			return fmt.Errorf("capacity: the snapshot has no %q member; merge a snapshot written by Cache.Snapshot", name)
		}
	}
	if p.version != SnapshotVersion {
		return versionError(p.version)
	}
	h := newSum()
	for i, e := range p.entries {
		if int(e.ami) >= len(p.amis) {
			return fmt.Errorf("capacity: snapshot entry %d (%s) refers to AMI %d, but amis has %d; the snapshot is corrupted", i, names[e.name], e.ami, len(p.amis))
		}
		h.entry(names[e.name], int64(e.ami), e.memory, e.observed)
	}
	for _, id := range p.amis {
		h.name(id)
	}
	if got := h.value(); got != p.sum {
		return fmt.Errorf("capacity: the snapshot's sum is %08x, but its content sums to %08x; it was altered or corrupted after Cache.Snapshot wrote it", p.sum, got)
	}
	return nil
}

// sum reads the "sum" member: 8 lowercase hex digits.
func (d *decoder) sum() (uint32, error) {
	raw, err := d.str()
	if err != nil {
		return 0, err
	}
	var n uint32
	for _, c := range raw {
		switch {
		case '0' <= c && c <= '9':
			n = n<<4 | uint32(c-'0')
		case 'a' <= c && c <= 'f':
			n = n<<4 | uint32(c-'a'+10)
		default:
			return 0, d.errorf("sum %q is not 8 lowercase hex digits", raw)
		}
	}
	if len(raw) != 8 {
		return 0, d.errorf("sum %q is not 8 lowercase hex digits", raw)
	}
	return n, nil
}

func (d *decoder) memberName() (string, error) {
	raw, err := d.str()
	if err != nil {
		return "", err
	}
	if err := d.expect(':'); err != nil {
		return "", err
	}
	return string(raw), nil
}

// amis reads the AMI table: distinct valid IDs.
func (d *decoder) amis() ([]string, error) {
	var amis []string
	seen := make(map[string]bool)
	err := d.array(func() error {
		raw, err := d.str()
		if err != nil {
			return err
		}
		id := string(raw)
		switch {
		case !validName(id):
			return d.errorf("AMI ID %q: %v", id, ErrInvalidName)
		case seen[id]:
			return d.errorf("AMI ID %s is listed twice", id)
		}
		seen[id] = true
		amis = append(amis, id)
		return nil
	})
	return amis, err
}

// entries reads the entries, each [type, AMI index, memory, observed].
func (d *decoder) entries() ([]packed, error) {
	// A typical entry takes 40 bytes.
	entries := make([]packed, 0, (len(d.data)-d.pos)/40)
	err := d.array(func() error {
		e, ok := d.plainEntry()
		if !ok {
			var err error
			if e, err = d.entry(len(entries)); err != nil {
				return err
			}
		}
		entries = append(entries, e)
		return nil
	})
	return entries, err
}

// plainEntry reads an entry as Snapshot writes it, in one pass with no
// calls: optional white space, then ["name",index,memory,time] with no
// white space, no escapes and no integer of more than 18 digits. On
// anything else, valid or not, it reads nothing and reports false, and
// entry reads the entry and says what is wrong.
func (d *decoder) plainEntry() (e packed, ok bool) {
	data := d.data
	i := d.pos
	for i < len(data) && (data[i] == '\n' || data[i] == ' ') {
		i++
	}
	if i+2 > len(data) || data[i] != '[' || data[i+1] != '"' {
		return e, false
	}
	start := i + 2
	i = start
	for i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= 0x20 {
		i++
	}
	if i >= len(data) || data[i] != '"' {
		return e, false
	}
	name, known := d.names[string(data[start:i])]
	if !known {
		return e, false // entry validates and interns it
	}
	i++
	var fields [3]int64
	for f := range fields {
		if i >= len(data) || data[i] != ',' {
			return e, false
		}
		i++
		digits := i
		var n int64
		for i < len(data) && data[i]-'0' <= 9 {
			n = n*10 + int64(data[i]-'0')
			i++
		}
		if width := i - digits; width == 0 || width > 18 || width > 1 && data[digits] == '0' {
			return e, false
		}
		fields[f] = n
	}
	if i >= len(data) || data[i] != ']' || fields[0] > math.MaxInt32 || fields[1] < 1 {
		return e, false
	}
	d.pos = i + 1
	return packed{name: name, ami: int32(fields[0]), memory: fields[1], observed: fields[2]}, true
}

func (d *decoder) entry(n int) (e packed, err error) {
	if err = d.expect('['); err != nil {
		return e, err
	}
	raw, err := d.str()
	if err != nil {
		return e, err
	}
	index, ok := d.names[string(raw)]
	if !ok {
		name := string(raw)
		if !validName(name) {
			return e, d.errorf("entry %d: instance type %q: %v", n, name, ErrInvalidName)
		}
		index = int32(len(d.list))
		d.names[name] = index
		d.list = append(d.list, name)
	}
	e.name = index
	name := d.list[index]
	ami, err := d.field(n, name, "AMI index", 0)
	if err != nil {
		return e, err
	}
	if ami > math.MaxInt32 {
		return e, d.errorf("entry %d (%s): AMI index %d is beyond any AMI table", n, name, ami)
	}
	e.ami = int32(ami)
	if e.memory, err = d.field(n, name, "memory", 1); err != nil {
		return e, err
	}
	if e.observed, err = d.field(n, name, "observation time", 0); err != nil {
		return e, err
	}
	return e, d.expect(']')
}

// field reads the comma and integer of one field of entry n, which must
// be at least least.
func (d *decoder) field(n int, name, what string, least int64) (int64, error) {
	if err := d.expect(','); err != nil {
		return 0, err
	}
	v, err := d.integer(what)
	if err == nil && v < least {
		err = d.errorf("entry %d (%s): %s %d is below %d", n, name, what, v, least)
	}
	return v, err
}

// array reads a JSON array, calling elem for each element.
func (d *decoder) array(elem func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if d.consume(']') {
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		if d.consume(']') {
			return nil
		}
		if err := d.expect(','); err != nil {
			return err
		}
	}
}

// The scanning functions copy d.data and d.pos into locals: through the
// pointer, the compiler reloads both on every byte.

func (d *decoder) space() {
	data, i := d.data, d.pos
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	d.pos = i
}

// consume skips whitespace and c, if c is next.
func (d *decoder) consume(c byte) bool {
	data, i := d.data, d.pos
	if i < len(data) && data[i] == c { // the common case: no whitespace
		d.pos = i + 1
		return true
	}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *decoder) expect(c byte) error {
	if d.consume(c) {
		return nil
	}
	if d.pos >= len(d.data) {
		return d.errorf("expected %q", c)
	}
	return d.errorf("expected %q, found %q", c, d.data[d.pos])
}

func (d *decoder) end() error {
	d.space()
	if d.pos != len(d.data) {
		return d.errorf("unexpected data after the snapshot")
	}
	return nil
}

// str reads a JSON string. Without escapes, the result aliases data.
func (d *decoder) str() ([]byte, error) {
	if err := d.expect('"'); err != nil {
		return nil, err
	}
	data, start := d.data, d.pos
	for i := start; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			d.pos = i + 1
			return data[start:i], nil
		case c == '\\':
			d.pos = i
			return d.escaped(start)
		case c < 0x20:
			d.pos = i
			return nil, d.errorf("control character %q in a string", c)
		}
	}
	d.pos = len(data)
	return nil, d.errorf("unterminated string")
}

// escaped finishes a string that has escapes, from its first backslash.
func (d *decoder) escaped(start int) ([]byte, error) {
	out := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return out, nil
		case c < 0x20:
			return nil, d.errorf("control character %q in a string", c)
		case c != '\\':
			out = append(out, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.data) {
			break
		}
		d.pos += 2
		if r, ok := simpleEscape(d.data[d.pos-1]); ok {
			out = append(out, r)
			continue
		}
		if d.data[d.pos-1] != 'u' || d.pos+4 > len(d.data) {
			return nil, d.errorf("bad escape in a string")
		}
		r, ok := hex4(d.data[d.pos : d.pos+4])
		if !ok {
			return nil, d.errorf("bad \\u escape in a string")
		}
		d.pos += 4
		// Names are ASCII, so a surrogate need not be paired: whatever it
		// decodes to, the name is refused.
		out = utf8.AppendRune(out, r)
	}
	return nil, d.errorf("unterminated string")
}

func simpleEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// integer reads a JSON number that must be an integer within int64.
func (d *decoder) integer(what string) (int64, error) {
	d.space()
	data, start := d.data, d.pos
	i := start
	neg := i < len(data) && data[i] == '-'
	if neg {
		i++
	}
	digits := i
	var n uint64 // 18 digits cannot overflow it; more are checked below
	for ; i < len(data); i++ {
		c := data[i] - '0'
		if c > 9 {
			break
		}
		n = n*10 + uint64(c)
	}
	d.pos = i
	switch {
	case i-digits > 18 && !fits(data[digits:i]):
		return 0, d.errorf("%s %s is out of range", what, data[start:i])
	case i == digits:
		return 0, d.errorf("expected a number for %s", what)
	case data[digits] == '0' && i-digits > 1:
		return 0, d.errorf("%s %s has a leading zero", what, data[start:i])
	case i < len(data) && (data[i] == '.' || data[i] == 'e' || data[i] == 'E'):
		return 0, d.errorf("%s must be an integer", what)
	case neg:
		return -int64(n), nil
	}
	return int64(n), nil
}

// fits reports whether the decimal digits fit in an int64.
func fits(digits []byte) bool {
	const max = "9223372036854775807"
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:] // a leading zero is refused after this check
	}
	return len(digits) < len(max) || len(digits) == len(max) && string(digits) <= max
}
