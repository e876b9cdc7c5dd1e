// Package kubelet models the kubelet's command line and what differs
// between its releases: the sets of releases ([Releases], [Minor], [Span],
// [ParseMinor]), the flags each release has and argv as pflag reads it
// for the kubelet ([ParseArgs]), the feature gates each release knows,
// locks and makes depend on each other ([GatesRefusal], [GateDefault]),
// the eviction signals it knows ([SignalReleases]), and the value syntaxes
// of its map, list, duration, number and gate flags and of its decoded
// config file ([ParseMap], [ParseGates], [SetConfigurationMap],
// [SplitList], [Durations], [WholeNumber], [StringMap], [Lookup],
// [LookupKey]).
//
// The tables cover Kubernetes 1.24 to 1.36, one release each (the newest
// patch the Go module proxy serves), recorded under upstream/, whose
// README says how they were read; tables.go embeds them. The typed kubelet configuration
// (userdata.KubeletConfig), its validation and where each boot agent
// writes it live in userdata's kubelet.go, which reads this package.
//
// Every function is pure and safe for concurrent use; the zero
// [Releases] is the empty set, on which every flag and gate is unknown.
package kubelet
