// Package manifest reads Kubernetes manifests the way `kubectl apply -f`
// and the API server read them, for the decoders of ec2select's resource
// types (weighting's NodePool, the EC2NodeClass of internal/ec2nodeclass):
//
//   - [Split] cuts a stream into documents at "---" lines, as
//     apimachinery's YAMLReader does, keeping each document's first line;
//   - [ToJSON] converts one document as kubectl does before sending it:
//     YAML 1.1 scalars through go.yaml.in/yaml/v2 (yes, on and y are
//     booleans, 08 a number, ~ null), the last of duplicate keys kept, then
//     JSON; [Decode] reads that JSON into the values the API server's
//     unstructured decoding makes (int64 for integers, float64 for other
//     numbers);
//   - [Metadata] reads and checks metadata as the API server reads an
//     ObjectMeta and validates it on create.
//
// The rules are cited where they are written. Everything here is a pure
// function, safe for concurrent use.
package manifest
