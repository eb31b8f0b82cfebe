package graphtest_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/unical/unical/internal/testkit/graphtest"
)

func TestCalendars_ListPaging(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	for i := range 4 {
		if _, err := f.srv.AddCalendar(f.user, graphtest.Calendar{Name: fmt.Sprintf("Team %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	items, pages := f.collect(t, "/v1.0/me/calendars?$top=2")
	var names []string
	for _, it := range items {
		names = append(names, it["name"].(string))
	}
	want := []string{"Calendar", "Team 0", "Team 1", "Team 2", "Team 3"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("calendar names mismatch (-want +got):\n%s", diff)
	}
	if pages != 3 {
		t.Errorf("pages = %d, want 3 with $top=2", pages)
	}

	first := f.do(t, http.MethodGet, "/v1.0/me/calendars?$top=2", nil)
	if next := first.str("@odata.nextLink"); !strings.HasPrefix(next, f.srv.URL+"/v1.0/me/calendars?") || !strings.Contains(next, "$skip=2") {
		t.Errorf("@odata.nextLink = %q, want an absolute link with $skip=2", next)
	}
	def := items[0]
	got := map[string]any{}
	for _, k := range []string{"isDefaultCalendar", "canEdit", "isRemovable", "color", "hexColor", "defaultOnlineMeetingProvider", "allowedOnlineMeetingProviders", "owner"} {
		got[k] = def[k]
	}
	wantDef := map[string]any{
		"isDefaultCalendar": true, "canEdit": true, "isRemovable": false, "color": "auto", "hexColor": "",
		"defaultOnlineMeetingProvider": "teamsForBusiness", "allowedOnlineMeetingProviders": []any{"teamsForBusiness"},
		"owner": map[string]any{"name": "Ada Lovelace", "address": "ada@contoso.test"},
	}
	if diff := cmp.Diff(wantDef, got); diff != "" {
		t.Errorf("default calendar mismatch (-want +got):\n%s", diff)
	}
	if def["changeKey"] == "" || def["id"] == "" {
		t.Errorf("default calendar has no id or changeKey: %v", def)
	}
}

func TestCalendars_CRUD(t *testing.T) {
	t.Parallel()
	f := mustSetup(t, graphtest.Options{})
	created := f.do(t, http.MethodPost, "/v1.0/me/calendars", map[string]any{"name": "Projects", "color": "lightBlue"})
	mustStatus(t, created, http.StatusCreated)
	id := created.str("id")

	tests := []struct {
		name       string
		method     string
		path       string
		body       any
		wantStatus int
		wantCode   string
	}{
		{"ErrDuplicateName", http.MethodPost, "/v1.0/me/calendars", map[string]any{"name": "projects"}, http.StatusConflict, "ErrorFolderExists"},
		{"ErrReadOnlyProperty", http.MethodPost, "/v1.0/me/calendars", map[string]any{"name": "X", "hexColor": "#ff0000"}, http.StatusBadRequest, "RequestBodyRead"},
		{"ErrBadColor", http.MethodPatch, "/v1.0/me/calendars/" + id, map[string]any{"color": "purple"}, http.StatusBadRequest, "RequestBodyRead"},
		{"ErrNotFound", http.MethodGet, "/v1.0/me/calendars/AAMkNOPE", nil, http.StatusNotFound, "ErrorItemNotFound"},
		{"ErrDeleteDefault", http.MethodDelete, "/v1.0/me/calendars/" + f.srv.DefaultCalendarID(f.user), nil, http.StatusBadRequest, "ErrorCannotDeleteObject"},
		{"OKGetByUsersPath", http.MethodGet, "/v1.0/users/ada@contoso.test/calendars/" + id, nil, http.StatusOK, ""},
		{"ErrOtherUser", http.MethodGet, "/v1.0/users/bob@contoso.test/calendars", nil, http.StatusForbidden, "ErrorAccessDenied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(t, tc.method, tc.path, tc.body)
			if r.status != tc.wantStatus || r.errorCode() != tc.wantCode {
				t.Errorf("%s %s = %d %q, want %d %q; body %s", tc.method, tc.path, r.status, r.errorCode(), tc.wantStatus, tc.wantCode, r.raw)
			}
		})
	}

	patched := f.do(t, http.MethodPatch, "/v1.0/me/calendars/"+id, map[string]any{"name": "Projects 2025", "color": "lightGreen"})
	mustStatus(t, patched, http.StatusOK)
	if patched.str("name") != "Projects 2025" || patched.str("color") != "lightGreen" || patched.str("changeKey") == created.str("changeKey") {
		t.Errorf("PATCH result = %v, want new name, color and changeKey", patched.body)
	}
	mustStatus(t, f.do(t, http.MethodDelete, "/v1.0/me/calendars/"+id, nil), http.StatusNoContent)
	mustStatus(t, f.do(t, http.MethodGet, "/v1.0/me/calendars/"+id, nil), http.StatusNotFound)
}
