// Package catalogfile reads and writes ec2fake's embedded catalog files:
// instance types ([EncodeType], [DecodeTypes]) and images ([EncodeImage],
// [DecodeImages]). The formats exist because decoding the AWS CLI's JSON
// for 1,366 instance types takes about 100 ms; these decode in a few.
//
// Grammar (both files):
//
//	file    = { comment } header { comment | row }
//	comment = "#" text LF            (and empty lines)
//	header  = column { TAB column } LF  (exactly TypeColumns or ImageColumns)
//	row     = field { TAB field } LF    (one field per column)
//
// An empty field is an absent value (nil in the SDK type). List fields
// separate items with ",", and an item's parts with ":": a network card
// is index:max-interfaces:baseline-gbps, a GPU
// manufacturer:name:count:memory-mib:logical-count:partition, a Neuron
// device name:count:cores:core-version:memory-mib, an inference
// accelerator manufacturer:name:count, a volume device:gib:type, a tag
// key=value. No value may contain TAB, LF, "," or ":" (the generator
// checks by decoding what it wrote).
//
// Facts without a column are dropped by Encode; Decode fills in what is
// the same for every catalog entry (HVM, EBS root, Xen images with ENA)
// or follows from other columns (MaximumNetworkCards from the cards,
// EfaSupported from efa_interfaces, totals of GPU and Neuron memory) and
// otherwise leaves fields nil. A zero is a value, not an absence:
// ipv6_per_eni 0 with ipv6_supported false is EC2's answer for a type
// without IPv6. Decoding never panics: a bad row is an error naming
// its line.
//
// Functions are safe for concurrent use; there is no package state.
package catalogfile
