// Package nodeadm models what AL2023's nodeadm does with the userData: the
// node.eks.aws/v1alpha1 NodeConfig documents it reads ([Decode]), the
// multipart parts it reads them from ([IsMultipart], [Parts]), how it
// merges them ([Merge]), the cluster fields it requires ([MissingCluster]),
// how its kubelet flags reach the kubelet ([KubeletArgs]), the kubelet
// config it writes itself ([KubeletBase]), where a key is in a document
// ([Doc.KeyLine]), and the
// NodeConfig that userdata's Render writes ([NodeConfig]). Lint and Render
// read this one model, so they cannot disagree about nodeadm.
//
// Sources are awslabs/amazon-eks-ami@81fec2e8 nodeadm/, cited at each
// rule. Every function is pure and safe for concurrent use. Decoded
// documents are maps as sigs.k8s.io/yaml produces them (numbers are
// float64); the zero [Merged] is the merge of no documents.
package nodeadm
