// Package openapienum fills the enums of a hand-written OpenAPI document
// that list what a server is built with (its provider types), so that
// the document a server serves names every provider handed to it. An
// enum to fill carries "x-unical-enum" naming its list; the document as
// written holds the lists of the server unical ships.
package openapienum

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/unical/unical"
)

// Key is the extension that names an enum's list.
const Key = "x-unical-enum"

// Fill returns doc with each enum marked [Key] extended by the values of
// the list of that name in lists that it lacks; doc itself (the same
// bytes) when it lacks none, so a server built as unical ships (or with
// fewer providers, which the document as written describes) serves the
// document as written. A marked enum whose list is not in lists is left
// alone.
func Fill(doc []byte, lists map[string][]string) ([]byte, error) {
	var root any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	changed := false
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if name, ok := v[Key].(string); ok {
				enum := strings(v["enum"])
				for _, value := range lists[name] {
					if !slices.Contains(enum, value) {
						enum = append(enum, value)
						v["enum"], changed = enum, true
					}
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(root)
	if !changed {
		return doc, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// strings reads a JSON array of strings.
func strings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, s := range arr {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

// ProviderLists are the lists of c's provider types the documents name:
// providerTypes (PROVIDER_A...), providerPaths (provider_a...) and
// oauthProviderPaths (the types with the browser OAuth flow).
func ProviderLists(c *unical.Client) map[string][]string {
	lists := map[string][]string{"providerTypes": {}, "providerPaths": {}, "oauthProviderPaths": {}}
	for _, t := range c.ProviderTypes() {
		lists["providerTypes"] = append(lists["providerTypes"], string(t))
		lists["providerPaths"] = append(lists["providerPaths"], t.PathName())
		if c.Credential(t) == unical.CredentialOAuth {
			lists["oauthProviderPaths"] = append(lists["oauthProviderPaths"], t.PathName())
		}
	}
	return lists
}
