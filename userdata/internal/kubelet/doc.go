// Package kubelet models the kubelet's command line and the syntax of its
// flag and config values: the flag set of each sampled release
// ([Releases]), argv as pflag reads it for the kubelet ([ParseArgs]), and
// the value syntaxes of its map, list, duration and number flags and of
// its decoded config file ([ParseMap], [SetConfigurationMap],
// [SplitList], [Durations], [WholeNumber], [StringMap], [Lookup]).
//
// The typed kubelet configuration (userdata.KubeletConfig), its
// validation and where each boot agent writes it live in userdata's
// kubelet.go, which reads this package.
//
// Every function is pure and safe for concurrent use; the zero
// [Releases] is the empty set, on which every flag is unknown.
package kubelet
