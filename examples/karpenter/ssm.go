package karpenter

import (
	"context"
	"errors"
	"fmt"
	"strings"

	awsssm "github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/ec2select/ec2select/amiselect"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/ssm"
)

// CachedSSM is an amiselect.SSMClient that reads through Karpenter's
// cached SSM provider (pkg/providers/ssm, karpenter-provider-aws
// v1.14.1), so that its cache and the controller that invalidates it
// (pkg/controllers/providers/ssm/invalidation) keep working. Each
// parameter is tagged as Karpenter tags it for NodeClass: one an
// ssmParameter term names as CustomParameterType, cached 5 minutes
// (amifamily/ami.go:118-121); an alias's public parameter as mutable when
// the alias's version is latest, and always for Windows
// (amifamily/al2023.go:47-50, windows.go:51-54). Pass Karpenter's
// sdk.SSMAPI itself where no cache is wanted: it satisfies
// amiselect.SSMClient as it is.
type CachedSSM struct {
	Provider  ssm.Provider
	NodeClass *v1.EC2NodeClass
}

var _ amiselect.SSMClient = CachedSSM{}

// GetParameter reads in.Name through the provider. Only the value is
// returned; a failure keeps the SDK error it wraps, so a missing
// parameter is still a ParameterNotFound to errors.As.
func (c CachedSSM) GetParameter(ctx context.Context, in *awsssm.GetParameterInput, _ ...func(*awsssm.Options)) (*awsssm.GetParameterOutput, error) {
	if in == nil || in.Name == nil {
		return nil, errors.New("karpenter: GetParameter needs a parameter name")
	}
	name := *in.Name
	value, err := c.Provider.Get(ctx, c.parameter(name))
	if err != nil {
		return nil, fmt.Errorf("karpenter: ssm parameter %s: %w", name, err)
	}
	return &awsssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: &name, Value: &value}}, nil
}

func (c CachedSSM) parameter(name string) ssm.Parameter {
	p := ssm.Parameter{Name: name}
	if c.NodeClass == nil {
		return p
	}
	for _, t := range c.NodeClass.Spec.AMISelectorTerms {
		if t.SSMParameter == name {
			p.Type = ssm.CustomParameterType
			return p
		}
	}
	if alias := c.NodeClass.Alias(); alias != nil {
		p.IsMutable = alias.Version == v1.AliasVersionLatest || strings.HasPrefix(alias.Family, "Windows")
	}
	return p
}
