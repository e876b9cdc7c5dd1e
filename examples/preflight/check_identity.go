package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ec2select/ec2select/amiselect"
)

// ec2ImageID is an image ID as EC2 issues them: "ami-" and 8 hexadecimal
// digits, or 17 since EC2's longer resource IDs (EC2 User Guide, "Resource
// IDs"; AWS's API models write the pattern (ami-[0-9a-f]{8})|(ami-[0-9a-f]{17})).
// Asked for any other ID, EC2 answers InvalidAMIID.Malformed ("Ensure that
// you provide the full AMI ID, in the form ami-xxxxxxxxxxxxxxxxx", EC2 API
// Reference, error codes).
var ec2ImageID = regexp.MustCompile(`^ami-([0-9a-f]{8}|[0-9a-f]{17})$`)

// roleARN and profileARN are an IAM role's and an instance profile's ARN,
// in any partition: arn:aws:iam::<account>:role/<path/><name>.
var (
	roleARN    = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:role/(?:.*/)?([^/]+)$`)
	profileARN = regexp.MustCompile(`^arn:aws[a-z-]*:iam::[0-9]{12}:instance-profile/(?:.*/)?([^/]+)$`)
)

// identities reports what the CRD takes in an EC2NodeClass but the AWS
// names in it cannot be: AMI IDs EC2 never issues, and a role or an
// instance profile given as an ARN.
func (c *checker) identities(nc *nodeClass) {
	c.imageIDs(nc)
	c.roleName(nc)
	c.profileName(nc)
}

// imageIDs warns of ID terms EC2 cannot have issued. The CRD's pattern,
// ami-[0-9a-z]+, takes "ami-123" (Karpenter's own examples write it), and
// Karpenter v1.14.1 puts every ID term in one image-id filter
// (aws/karpenter-provider-aws bde00654, pkg/providers/amifamily/ami.go
// L111-116 and L166-167), which no image matches: the term selects
// nothing, and with no other term the EC2NodeClass has no AMI.
func (c *checker) imageIDs(nc *nodeClass) {
	var bad []string
	for _, t := range nc.AMISelectorTerms {
		if t.ID != "" && !nc.filled.has(t.ID) && !ec2ImageID.MatchString(t.ID) {
			bad = append(bad, t.ID)
		}
	}
	if len(bad) == 0 {
		return
	}
	ids, what := "ids %s are not IDs", "these terms select nothing"
	if len(bad) == 1 {
		ids, what = "id %s is not an ID", "the term selects nothing"
	}
	if len(selectable(nc)) == 0 {
		what += ", and with no other term the EC2NodeClass selects no AMI: no NodePool that uses it launches a node"
	}
	line := nc.doc.lineOf(func(l string) bool { return strings.Contains(l, "id:") && strings.Contains(l, bad[0]) })
	c.out.add(Finding{Severity: SevWarning, Code: codeMalformedAMIID, Where: nc.doc.at(line), Subjects: []string{"EC2NodeClass " + nc.Name},
		Message: fmt.Sprintf("spec.amiSelectorTerms "+ids+" EC2 can have issued (\"ami-\" and 8 or 17 hexadecimal digits; asked for such an ID, EC2 answers InvalidAMIID.Malformed): the CRD's pattern ami-[0-9a-z]+ takes it, and Karpenter looks it up in an image-id filter, which no image matches, so %s", quotedList(bad), what),
		Fix:     "write each AMI's full ID, such as ami-0123456789abcdef0, as aws ec2 describe-images shows it"})
}

// selectable are the AMI terms that can select an image: those whose
// values are not placeholders filled in, or IDs EC2 cannot have issued.
func selectable(nc *nodeClass) []amiselect.Term {
	var out []amiselect.Term
	for _, t := range nc.AMISelectorTerms {
		if t.ID != "" && (nc.filled.has(t.ID) || !ec2ImageID.MatchString(t.ID)) {
			continue
		}
		if nc.filled.has(t.Name) || nc.filled.has(t.SSMParameter) || nc.filled.has(t.Alias) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// roleName warns of spec.role written as an IAM role's ARN. Karpenter
// v1.14.1 takes spec.role as a role name (aws/karpenter-provider-aws
// bde00654): it attaches the role to the instance profile it makes by the
// ARN's last segment (pkg/providers/instanceprofile/instanceprofile.go
// L168-173), but decides whether the profile is current by comparing the
// role IAM reports on it, a bare name, with spec.role
// (pkg/controllers/nodeclass/instanceprofile.go L77-82). An ARN never
// equals a name, so each time its cache of the profile expires
// (InstanceProfileTTL, 15 minutes, pkg/cache/cache.go L39) it makes a new
// instance profile and switches the EC2NodeClass to it.
func (c *checker) roleName(nc *nodeClass) {
	m := roleARN.FindStringSubmatch(nc.Role)
	if m == nil || placeholderToken.MatchString(nc.Role) {
		return
	}
	line := nc.doc.lineOf(hasPrefix("role:"))
	c.out.add(Finding{Severity: SevWarning, Code: codeRoleARN, Where: nc.doc.at(line), Subjects: []string{"EC2NodeClass " + nc.Name},
		Message: fmt.Sprintf("spec.role is an IAM role ARN, %q, and Karpenter takes spec.role as a role name: it attaches the role %q to the instance profile it makes, but then compares the role IAM reports on the profile, %q, with spec.role, which never match, so every 15 minutes (when its cache of the profile expires) it makes a new instance profile, and new launch templates for it", nc.Role, m[1], m[1]),
		Fix:     fmt.Sprintf("write the role's name: role: %s", m[1])})
}

// profileName reports spec.instanceProfile written as an ARN: Karpenter
// v1.14.1 gives it to EC2 as the instance profile's name in every launch
// template (aws/karpenter-provider-aws bde00654,
// pkg/providers/launchtemplate/types.go L113-115), and EC2 refuses an ARN
// there, so every launch fails, while the EC2NodeClass reports the profile
// ready (karpenter-provider-aws #8312).
func (c *checker) profileName(nc *nodeClass) {
	m := profileARN.FindStringSubmatch(nc.InstanceProfile)
	if m == nil || placeholderToken.MatchString(nc.InstanceProfile) {
		return
	}
	line := nc.doc.lineOf(hasPrefix("instanceProfile:"))
	c.out.add(Finding{Severity: SevError, Code: codeProfileARN, Where: nc.doc.at(line), Subjects: []string{"EC2NodeClass " + nc.Name},
		Message: fmt.Sprintf("spec.instanceProfile is an instance profile ARN, %q: Karpenter gives it to EC2 as the profile's name in every launch template, and EC2 refuses an ARN there, so no node launches (the EC2NodeClass still reports its instance profile ready: karpenter-provider-aws #8312)", nc.InstanceProfile),
		Fix:     fmt.Sprintf("write the instance profile's name: instanceProfile: %s", m[1])})
}

func quotedList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
