package manifest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ec2select/ec2select/internal/schema"
	"github.com/ec2select/ec2select/internal/validation"
)

// Meta is what the API server reads of an object's metadata
// (metav1.ObjectMeta) and what its validation looks at.
type Meta struct {
	Name, GenerateName, Namespace string
	ResourceVersion               string
	Generation                    int64
	Labels, Annotations           map[string]string
	Finalizers                    []string
	OwnerReferences               []OwnerReference
	// ServerWritten names the fields set that the API server writes and
	// a manifest to create should not carry: resourceVersion,
	// managedFields, deletionTimestamp, deletionGracePeriodSeconds.
	ServerWritten []string
}

// OwnerReference is what validation reads of one metadata.ownerReferences
// entry.
type OwnerReference struct {
	APIVersion, Kind, Name, UID string
	Controller                  bool
}

// metaField reads one ObjectMeta field from its JSON value into m, or
// returns why it cannot be (the JSON type does not fit the Go type).
type metaField func(m *Meta, v any, path string) []schema.Error

// metaFields are the fields of metav1.ObjectMeta (k8s.io/apimachinery
// v0.35.3, pkg/apis/meta/v1/types.go) by JSON name.
var metaFields = map[string]metaField{
	"name":         str(func(m *Meta, s string) { m.Name = s }),
	"generateName": str(func(m *Meta, s string) { m.GenerateName = s }),
	"namespace":    str(func(m *Meta, s string) { m.Namespace = s }),
	"selfLink":     str(func(*Meta, string) {}),
	"uid":          str(func(*Meta, string) {}),
	"resourceVersion": str(func(m *Meta, s string) {
		if s != "" {
			m.ResourceVersion = s
			m.ServerWritten = append(m.ServerWritten, "resourceVersion")
		}
	}),
	"generation":        integer(func(m *Meta, n int64) { m.Generation = n }),
	"creationTimestamp": timestamp(func(*Meta) {}),
	"deletionTimestamp": timestamp(func(m *Meta) { m.ServerWritten = append(m.ServerWritten, "deletionTimestamp") }),
	"deletionGracePeriodSeconds": integer(func(m *Meta, _ int64) {
		m.ServerWritten = append(m.ServerWritten, "deletionGracePeriodSeconds")
	}),
	"labels":          stringMap(func(m *Meta, l map[string]string) { m.Labels = l }),
	"annotations":     stringMap(func(m *Meta, a map[string]string) { m.Annotations = a }),
	"finalizers":      stringList(func(m *Meta, l []string) { m.Finalizers = l }),
	"ownerReferences": ownerReferences,
	"managedFields":   managedFields,
}

// Metadata reads v, the metadata of an object at path ("metadata"), as
// the API server decodes it into an ObjectMeta on create, with strict
// field validation (apiextensions-apiserver v0.35.3,
// pkg/apiserver/schema/objectmeta/coerce.go, GetObjectMetaWithOptions):
// a field ObjectMeta does not have is an error, and so is a value its Go
// type cannot hold; null is the zero value. Absent metadata is empty.
func Metadata(v any, path string) (Meta, []schema.Error) {
	var m Meta
	if v == nil {
		return m, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return m, []schema.Error{{Path: path, Problem: fmt.Sprintf("is %s; metadata is an object with a name", kindOf(v))}}
	}
	var errs []schema.Error
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		read, known := metaFields[k]
		if !known {
			errs = append(errs, unknownField(schema.Field(path, k), "metadata"))
			continue
		}
		if obj[k] == nil {
			continue
		}
		errs = append(errs, read(&m, obj[k], schema.Field(path, k))...)
	}
	return m, errs
}

func unknownField(path, where string) schema.Error {
	return schema.Error{Path: path, Problem: fmt.Sprintf("is not a field of %s; kubectl apply (strict field validation, its default) refuses the object, and without it the API server drops the field, so remove it or correct its name", where)}
}

func str(set func(*Meta, string)) metaField {
	return func(m *Meta, v any, path string) []schema.Error {
		s, ok := v.(string)
		if !ok {
			return wrongType(path, v, "a string")
		}
		set(m, s)
		return nil
	}
}

func integer(set func(*Meta, int64)) metaField {
	return func(m *Meta, v any, path string) []schema.Error {
		n, ok := schema.AsInteger(v)
		if !ok {
			return wrongType(path, v, "an integer")
		}
		set(m, n)
		return nil
	}
}

// timestamp reads a metav1.Time: an RFC 3339 string (metav1.Time's
// UnmarshalJSON parses it with time.RFC3339).
func timestamp(set func(*Meta)) metaField {
	return func(m *Meta, v any, path string) []schema.Error {
		s, ok := v.(string)
		if !ok {
			return wrongType(path, v, "an RFC 3339 time")
		}
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return []schema.Error{{Path: path, Problem: fmt.Sprintf("%q is not an RFC 3339 time such as 2025-01-02T15:04:05Z", s)}}
		}
		set(m)
		return nil
	}
}

func stringMap(set func(*Meta, map[string]string)) metaField {
	return func(m *Meta, v any, path string) []schema.Error {
		obj, ok := v.(map[string]any)
		if !ok {
			return wrongType(path, v, "an object of strings")
		}
		out := make(map[string]string, len(obj))
		var errs []schema.Error
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			switch e := obj[k].(type) {
			case string:
				out[k] = e
			case nil:
				out[k] = "" // encoding/json leaves null as the zero value
			default:
				errs = append(errs, wrongType(schema.Key(path, k), e, "a string")...)
			}
		}
		set(m, out)
		return errs
	}
}

func stringList(set func(*Meta, []string)) metaField {
	return func(m *Meta, v any, path string) []schema.Error {
		l, ok := v.([]any)
		if !ok {
			return wrongType(path, v, "a list of strings")
		}
		out := make([]string, len(l))
		var errs []schema.Error
		for i, e := range l {
			switch e := e.(type) {
			case string:
				out[i] = e
			case nil:
			default:
				errs = append(errs, wrongType(schema.Index(path, i), e, "a string")...)
			}
		}
		set(m, out)
		return errs
	}
}

// objectFields reads an object of known fields of JSON type string or
// boolean into the values fields names, for the entries of
// ownerReferences and managedFields.
func objectFields(v any, path string, fields map[string]string, what string) (map[string]any, []schema.Error) {
	obj, ok := v.(map[string]any)
	if v == nil {
		return nil, nil
	}
	if !ok {
		return nil, wrongType(path, v, "an object")
	}
	var errs []schema.Error
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		want, known := fields[k]
		p := schema.Field(path, k)
		switch _, isString := obj[k].(string); {
		case !known:
			errs = append(errs, unknownField(p, what))
		case obj[k] == nil:
		case want == "string" && !isString:
			errs = append(errs, wrongType(p, obj[k], "a string")...)
		case want == "boolean":
			if _, ok := obj[k].(bool); !ok {
				errs = append(errs, wrongType(p, obj[k], "a boolean")...)
			}
		}
	}
	return obj, errs
}

var ownerReferenceFields = map[string]string{
	"apiVersion": "string", "kind": "string", "name": "string", "uid": "string",
	"controller": "boolean", "blockOwnerDeletion": "boolean",
}

func ownerReferences(m *Meta, v any, path string) []schema.Error {
	l, ok := v.([]any)
	if !ok {
		return wrongType(path, v, "a list of owner references")
	}
	var errs []schema.Error
	for i, e := range l {
		obj, es := objectFields(e, schema.Index(path, i), ownerReferenceFields, "an owner reference")
		errs = append(errs, es...)
		s := func(k string) string { x, _ := obj[k].(string); return x }
		controller, _ := obj["controller"].(bool)
		m.OwnerReferences = append(m.OwnerReferences, OwnerReference{s("apiVersion"), s("kind"), s("name"), s("uid"), controller})
	}
	return errs
}

// managedFields are read, for their types, but only the server may write
// them: Validate counts them as server-written.
func managedFields(m *Meta, v any, path string) []schema.Error {
	l, ok := v.([]any)
	if !ok {
		return wrongType(path, v, "a list of managed fields entries")
	}
	fields := map[string]string{"manager": "string", "operation": "string", "apiVersion": "string", "time": "string", "fieldsType": "string", "fieldsV1": "any", "subresource": "string"}
	var errs []schema.Error
	for i, e := range l {
		_, es := objectFields(e, schema.Index(path, i), fields, "a managed fields entry")
		errs = append(errs, es...)
	}
	m.ServerWritten = append(m.ServerWritten, "managedFields")
	return errs
}

func wrongType(path string, v any, want string) []schema.Error {
	return []schema.Error{{Path: path, Problem: fmt.Sprintf("is %s, and the field takes %s", kindOf(v), want)}}
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean (YAML 1.1 reads yes, no, on and off as booleans: quote them)"
	case int64, float64:
		return "a number (quote it to make it a string)"
	}
	return fmt.Sprintf("%T", v)
}

// TotalAnnotationBytes is the API server's limit on an object's
// annotations, keys and values together (apimachinery
// pkg/api/validation/objectmeta.go, TotalAnnotationSizeLimitB).
const TotalAnnotationBytes = 256 * 1024

// Validate checks m as the API server validates the metadata of a
// cluster-scoped custom resource (apimachinery v0.35.3,
// pkg/api/validation/objectmeta.go, ValidateObjectMetaAccessor with
// NameIsDNSSubdomain, which apiextensions-apiserver's
// customResourceValidator.Validate calls): a name, or a generateName, that
// is a DNS-1123 subdomain; label keys that are qualified names and values
// that are label values; annotation keys that are qualified names once
// lower-cased, all annotations within 256 KiB; finalizers that are
// qualified names, not both orphan and foregroundDeletion; owner
// references with an apiVersion that has a version, a kind, a name and a
// uid, at most one of them the controller, none a v1 Event. A namespace is
// accepted: the API server clears it on a cluster-scoped object
// (apiserver pkg/registry/rest/meta.go,
// EnsureObjectNamespaceMatchesRequestNamespace).
func (m Meta) Validate(path string) []schema.Error {
	errs := m.validate(path)
	if m.Generation < 0 {
		errs = append(errs, schema.Error{Path: schema.Field(path, "generation"), Problem: fmt.Sprintf("%d is negative", m.Generation)})
	}
	return errs
}

// validate is what Validate and ValidateCreate share: a generation is
// replaced on create (the strategy's PrepareForCreate sets it to 1).
func (m Meta) validate(path string) []schema.Error {
	var errs []schema.Error
	add := func(field, problem string) {
		errs = append(errs, schema.Error{Path: schema.Field(path, field), Problem: problem})
	}
	if m.GenerateName != "" {
		// the generated name appends characters, so a trailing '-' is fine
		if err := validation.DNS1123Subdomain(strings.TrimSuffix(m.GenerateName, "-")); err != nil {
			add("generateName", fmt.Sprintf("%q is not a DNS-1123 subdomain prefix: %v", m.GenerateName, err))
		}
	}
	if m.Name == "" {
		add("name", "is required and not set; name the object")
	} else if err := validation.DNS1123Subdomain(m.Name); err != nil {
		add("name", fmt.Sprintf("%q is not a DNS-1123 subdomain (%v); use lower-case letters, digits, '-' and '.'", m.Name, err))
	}
	errs = append(errs, Labels(schema.Field(path, "labels"), m.Labels)...)
	errs = append(errs, Annotations(schema.Field(path, "annotations"), m.Annotations)...)
	errs = append(errs, m.validateOwners(schema.Field(path, "ownerReferences"))...)
	return append(errs, Finalizers(schema.Field(path, "finalizers"), m.Finalizers)...)
}

// ValidateCreate is Validate plus what the create path refuses, or what a
// manifest to create should not carry: a resourceVersion, which the API
// server refuses on create (apiserver v0.35.3, pkg/storage/etcd3/store.go
// L288, ErrResourceVersionSetOnCreate), and managedFields,
// deletionTimestamp and deletionGracePeriodSeconds, which only the server
// writes; ec2select refuses those three as well, where the API server
// would overwrite or ignore them.
func (m Meta) ValidateCreate(path string) []schema.Error {
	errs := m.validate(path)
	for _, f := range m.ServerWritten {
		problem := "is written by the API server and has no place in a manifest to apply; remove it (kubectl get -o yaml output needs resourceVersion, uid, creationTimestamp, generation, managedFields and status removed)"
		if f == "resourceVersion" {
			problem = "is set, and the API server refuses to create an object with a resourceVersion (\"resourceVersion should not be set on objects to be created\"); remove it"
		}
		errs = append(errs, schema.Error{Path: schema.Field(path, f), Problem: problem})
	}
	return errs
}

// Labels checks labels as the API server checks an object's
// (apimachinery pkg/apis/meta/v1/validation, ValidateLabels).
func Labels(path string, labels map[string]string) []schema.Error {
	var errs []schema.Error
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if err := validation.QualifiedName(k); err != nil {
			errs = append(errs, schema.Error{Path: path, Problem: fmt.Sprintf("key %q: %v", k, err)})
		}
		if err := validation.LabelValue(labels[k]); err != nil {
			errs = append(errs, schema.Error{Path: schema.Key(path, k), Problem: fmt.Sprintf("value %q: %v", labels[k], err)})
		}
	}
	return errs
}

// Annotations checks annotations as the API server checks an object's
// (ValidateAnnotations): keys are qualified names once lower-cased, and
// all of them fit in 256 KiB.
func Annotations(path string, m map[string]string) []schema.Error {
	var errs []schema.Error
	size := 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if err := validation.QualifiedName(strings.ToLower(k)); err != nil {
			errs = append(errs, schema.Error{Path: path, Problem: fmt.Sprintf("key %q: %v", k, err)})
		}
		size += len(k) + len(m[k])
	}
	if size > TotalAnnotationBytes {
		errs = append(errs, schema.Error{Path: path, Problem: fmt.Sprintf("%d bytes; the API server allows at most %d, so move large values elsewhere", size, TotalAnnotationBytes)})
	}
	return errs
}

// Finalizers checks finalizers as the API server does (ValidateFinalizers).
func Finalizers(path string, finalizers []string) []schema.Error {
	var errs []schema.Error
	orphan, foreground := false, false
	for i, f := range finalizers {
		if err := validation.QualifiedName(f); err != nil {
			errs = append(errs, schema.Error{Path: schema.Index(path, i), Problem: fmt.Sprintf("%q is not a qualified name (%v); write a finalizer such as example.com/cleanup", f, err)})
		}
		orphan = orphan || f == "orphan"
		foreground = foreground || f == "foregroundDeletion"
	}
	if orphan && foreground {
		errs = append(errs, schema.Error{Path: path, Problem: "orphan and foregroundDeletion cannot both be set; keep one"})
	}
	return errs
}

func (m Meta) validateOwners(path string) []schema.Error {
	var errs []schema.Error
	controller := ""
	for i, o := range m.OwnerReferences {
		p := schema.Index(path, i)
		group, version := groupVersion(o.APIVersion)
		switch {
		case version == "":
			errs = append(errs, schema.Error{Path: schema.Field(p, "apiVersion"), Problem: fmt.Sprintf("%q has no version; write group/version, such as apps/v1", o.APIVersion)})
		case o.Kind == "", o.Name == "", o.UID == "":
			errs = append(errs, schema.Error{Path: p, Problem: "needs a kind, a name and a uid"})
		case group == "" && version == "v1" && o.Kind == "Event":
			errs = append(errs, schema.Error{Path: p, Problem: "a v1 Event cannot be an owner"})
		}
		if o.Controller {
			if controller != "" {
				errs = append(errs, schema.Error{Path: path, Problem: fmt.Sprintf("%s/%s and %s are both marked controller; only one may be", o.Kind, o.Name, controller)})
			}
			controller = o.Kind + "/" + o.Name
		}
	}
	return errs
}

// groupVersion splits an apiVersion as apimachinery's ParseGroupVersion
// does; an apiVersion it cannot parse has no version.
func groupVersion(apiVersion string) (group, version string) {
	switch strings.Count(apiVersion, "/") {
	case 0:
		return "", apiVersion
	case 1:
		group, version, _ = strings.Cut(apiVersion, "/")
		return group, version
	}
	return "", ""
}
