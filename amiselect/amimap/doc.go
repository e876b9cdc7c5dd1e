// Package amimap holds what an AMI is to an instance type, without any
// way of finding AMIs: the [AMI] and its [Variant], the one rule that
// maps AMIs to instance types ([Choose], [Map], [Mapping]), and what an
// image's name, an EKS amiType or an SSM parameter name says about the
// image ([IdentifyImageName], [IdentifyAMIType], [IdentifySSMParameter],
// [Recognize]). Package amiselect finds and selects AMIs (through EC2 and
// SSM) and offers these under its own names; package capacity reads them
// from here, so that estimating capacity links no SSM client.
//
// The names of the families' public images, which the recognizer reads,
// are listed in package amiselect's documentation. Everything here is pure
// and safe for concurrent use; an AMI is a plain value.
package amimap
