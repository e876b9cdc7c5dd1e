package karpenter_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/yaml"
)

// apiServer is the path a manifest takes from `kubectl apply -f` (create,
// with kubectl's default --validate=strict) to the API server's storage,
// for one of Karpenter's CRDs, built from the real code of kubectl's
// reader (k8s.io/apimachinery v0.35.3), the API server's generic registry
// (k8s.io/apiserver v0.35.3) and its custom-resource handler
// (k8s.io/apiextensions-apiserver v0.35.3), over the CRD file Karpenter
// ships. Only etcd is missing, and the one check of its own it makes on
// create is repeated here.
type apiServer struct {
	gvk        schema.GroupVersionKind
	structural *structuralschema.Structural
	strategy   rest.RESTCreateStrategy
}

// karpenterCRD reads one of the CRD files a module of the nested go.mod
// ships under pkg/apis/crds, from the module cache: the CRDs are the ones
// of exactly the versions this module builds against.
func karpenterCRD(t testing.TB, module, file string) []byte {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	data, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg", "apis", "crds", file))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var (
	serversOnce  sync.Once
	nodePoolAPI  *apiServer
	nodeClassAPI *apiServer
	serversErr   error
)

// apiServers builds the API servers for the NodePool CRD that
// karpenter-provider-aws v1.14.1 installs (its copy of
// karpenter.sh_nodepools.yaml, with the karpenter.k8s.aws rules) and for
// its EC2NodeClass CRD, once per test binary.
func apiServers(t testing.TB) (nodePools, nodeClasses *apiServer) {
	t.Helper()
	serversOnce.Do(func() {
		nodePoolAPI, serversErr = newAPIServer(karpenterCRD(t, "github.com/aws/karpenter-provider-aws", "karpenter.sh_nodepools.yaml"))
		if serversErr == nil {
			nodeClassAPI, serversErr = newAPIServer(karpenterCRD(t, "github.com/aws/karpenter-provider-aws", "karpenter.k8s.aws_ec2nodeclasses.yaml"))
		}
	})
	if serversErr != nil {
		t.Fatal(serversErr)
	}
	return nodePoolAPI, nodeClassAPI
}

// newAPIServer builds the create path for the first version of a CRD, as
// the custom-resource handler does (customresource_handler.go
// getOrCreateServingInfoFor, L760-870 in v0.35.3).
func newAPIServer(crdYAML []byte) (*apiServer, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(crdYAML, &crd); err != nil {
		return nil, err
	}
	v := crd.Spec.Versions[0]
	var internal apiextensionsinternal.CustomResourceValidation
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var status *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if v.Subresources != nil && v.Subresources.Status != nil {
		status = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		statusSchema := internal.OpenAPIV3Schema.Properties["status"]
		if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
			return nil, err
		}
	}
	var scale *apiextensionsinternal.CustomResourceSubresourceScale
	if v.Subresources != nil && v.Subresources.Scale != nil {
		scale = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(v.Subresources.Scale, scale, nil); err != nil {
			return nil, err
		}
	}
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
	strategy := customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(), crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		gvk, validator, statusValidator, structural, status, scale, v.SelectableFields)
	return &apiServer{gvk: gvk, structural: structural, strategy: strategy}, nil
}

// apply runs one manifest document through `kubectl apply -f` for an
// object that does not exist yet, and returns the error kubectl would
// print, or nil when the API server stores it.
func (s *apiServer) apply(doc []byte) error {
	// kubectl: cli-runtime pkg/resource/visitor.go StreamVisitor.Visit
	// (L590-616): YAMLOrJSONDecoder into a RawExtension, empty and null
	// documents skipped, then the unstructured decoder (infoForData).
	d := yamlutil.NewYAMLOrJSONDecoder(bytes.NewReader(doc), 4096)
	var ext runtime.RawExtension
	if err := d.Decode(&ext); err != nil {
		return fmt.Errorf("kubectl: %w", err)
	}
	raw := bytes.TrimSpace(ext.Raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return fmt.Errorf("kubectl: no objects passed to apply")
	}
	obj, gvk, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err != nil {
		return fmt.Errorf("kubectl: %w", err)
	}
	if *gvk != s.gvk {
		return fmt.Errorf("kubectl: no matches for kind %q in version %q", gvk.Kind, gvk.GroupVersion())
	}
	if obj.(*unstructured.Unstructured).GetName() == "" {
		// kubectl apply reads the live object by name first.
		return fmt.Errorf("kubectl: resource name may not be empty")
	}
	// The request body is the unstructured object encoded again.
	body, err := runtime.Encode(unstructured.UnstructuredJSONScheme, obj)
	if err != nil {
		return fmt.Errorf("kubectl: %w", err)
	}
	return s.create(body)
}

// create is the API server's side.
func (s *apiServer) create(body []byte) error {
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(body, nil, nil)
	if err != nil {
		return err
	}
	u := obj.(*unstructured.Unstructured)
	// customresource_handler.go L1406-1471, unstructuredSchemaCoercer.apply
	// for a request (dropInvalidMetadata false), with the unknown field
	// paths strict field validation turns into an error (L1321-1345).
	objectMeta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return err
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, s.structural)
	coerceErr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, s.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if coerceErr != nil { // a *field.Error: compared before it becomes an error
		return coerceErr
	}
	unknown = append(unknown, paths...)
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return err
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("strict decoding error: unknown fields %s", strings.Join(unknown, ", "))
	}
	// unstructuredDefaulter (L1240-1249).
	structuraldefaulting.Default(u.Object, s.structural)
	// generic registry store.Create: system fields, then BeforeCreate
	// (strategy.PrepareForCreate, strategy.Validate with the schema, the
	// scale subresource and CEL, then ObjectMeta).
	rest.FillObjectMetaSystemFields(u)
	ctx := genericapirequest.WithNamespace(context.Background(), "")
	if err := rest.BeforeCreate(s.strategy, ctx, u); err != nil {
		return err
	}
	// etcd3 store.Create (apiserver pkg/storage/etcd3/store.go L287-289,
	// with APIObjectVersioner.ObjectResourceVersion): a resourceVersion
	// that parses as a non-zero number is refused; any other is replaced.
	if n, err := strconv.ParseUint(u.GetResourceVersion(), 10, 64); err == nil && n != 0 {
		return fmt.Errorf("resourceVersion should not be set on objects to be created")
	}
	return nil
}
