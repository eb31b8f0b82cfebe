package booking

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/unical/unical"
)

// A booking type is published by "public": true and a slug: unicald then
// serves its booking page at /book/{slug} (package bookingpage). The URL
// names no application, so a slug is unique on the server, across
// applications: the Store keeps one index record per slug, outside every
// application, naming the type that holds it.

// serverRecords is the application id under which the records.Store keeps
// the server-wide slug index. Real application ids are "app_…", so it
// belongs to none of them.
const serverRecords = "unical.server"

// slugsCollection maps a slug to the booking type that holds it.
const slugsCollection = "booking.slugs"

// slugGrace is how long a slug's index record may point to a type that
// does not hold the slug (its writer is still storing the type) before
// another type may take the slug over.
const slugGrace = time.Minute

// MaxFrameAncestors bounds a booking type's frameAncestors.
const MaxFrameAncestors = 20

// slugPattern is a slug: 3 to 64 lowercase letters, digits and hyphens,
// starting and ending with a letter or digit.
var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$`)

// originHost is the host of a frameAncestors origin: a DNS name (its
// first label may be "*") with an optional port.
var originHost = regexp.MustCompile(`^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?$`)

// CheckSlug reports whether slug is well formed; CodeInvalid naming
// "slug" when it is not.
func CheckSlug(slug string) error {
	if !slugPattern.MatchString(slug) {
		return unical.FieldError("slug", "slug must be 3 to 64 lowercase letters, digits and hyphens, starting and ending with a letter or digit.")
	}
	return nil
}

// checkFrameAncestors checks and normalizes the origins allowed to
// embed a type's booking page: each "https://host[:port]" or
// "http://host[:port]" (the host may start with "*." for its
// subdomains), or "'self'" for the server's own origin.
func checkFrameAncestors(list []string) ([]string, error) {
	if len(list) > MaxFrameAncestors {
		return nil, unical.FieldError("frameAncestors", "frameAncestors may list at most %d origins.", MaxFrameAncestors)
	}
	out := make([]string, 0, len(list))
	for i, o := range list {
		if o == "'self'" {
			out = append(out, o)
			continue
		}
		u, err := url.Parse(strings.ToLower(o))
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.Path != "" || u.RawQuery != "" ||
			u.Fragment != "" || u.Opaque != "" || strings.ContainsAny(o, "?#") || !originHost.MatchString(u.Host) {
			return nil, unical.FieldError("frameAncestors", "frameAncestors[%d] %q is not an origin such as https://www.example.com (or 'self').", i, o)
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out, nil
}

// checkPublishing checks a type's slug, public flag and frameAncestors
// after an update has been applied to it.
func checkPublishing(t *BookingType) error {
	if t.Slug != "" {
		if err := CheckSlug(t.Slug); err != nil {
			return err
		}
	}
	if t.Public && t.Slug == "" {
		return unical.FieldError("slug", "A public booking type needs a slug.")
	}
	list, err := checkFrameAncestors(t.FrameAncestors)
	if err != nil {
		return err
	}
	t.FrameAncestors = list
	return nil
}

// readStored reads and decodes a record of the application's own (or
// the server's) records: the Store's CodeNotFound when there is none.
func readStored[T any](ctx context.Context, st unical.Store, appID, collection, key string) (*T, uint64, error) {
	rec, err := st.GetRecord(ctx, appID, appRecords, collection, key)
	if err != nil {
		return nil, 0, err
	}
	v := new(T)
	if err := json.Unmarshal(rec.Data, v); err != nil {
		return nil, 0, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return v, rec.Version, nil
}

// slugOwner is a slug's index record.
type slugOwner struct {
	ApplicationID string    `json:"applicationId"`
	BookingTypeID string    `json:"bookingTypeId"`
	ClaimedAt     time.Time `json:"claimedAt"`
}

// claimSlug makes slug point to the type id of the application. It
// reports whether it wrote the index (false: the type held it already),
// and CodeConflict naming "slug" when another type holds it.
func (s *Service) claimSlug(ctx context.Context, slug, id string) (bool, error) {
	want := slugOwner{ApplicationID: s.app.ID(), BookingTypeID: id, ClaimedAt: s.now()}
	data, err := json.Marshal(want)
	if err != nil {
		return false, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	for range casAttempts {
		_, err := s.store.PutRecord(ctx, serverRecords, appRecords, slugsCollection, slug, data, 0)
		if err == nil {
			return true, nil
		}
		if unical.ErrorCode(err) != unical.CodeConflict {
			return false, err
		}
		have, version, err := readStored[slugOwner](ctx, s.store, serverRecords, slugsCollection, slug)
		if unical.ErrorCode(err) == unical.CodeNotFound {
			continue
		}
		if err != nil {
			return false, err
		}
		if have.ApplicationID == want.ApplicationID && have.BookingTypeID == want.BookingTypeID {
			return false, nil
		}
		if held, err := s.holdsSlug(ctx, have, slug); err != nil || held {
			if err != nil {
				return false, err
			}
			return false, &unical.Error{Code: unical.CodeConflict, Field: "slug", Message: "slug \"" + slug + "\" is taken; choose another."}
		}
		// The type it names is gone or holds another slug: the index
		// record is stale (an application deleted with its types, a
		// writer that died), and the slug free.
		err = s.store.DeleteRecord(ctx, serverRecords, appRecords, slugsCollection, slug, version)
		if err != nil && unical.ErrorCode(err) != unical.CodeConflict && unical.ErrorCode(err) != unical.CodeNotFound {
			return false, err
		}
	}
	return false, unical.Errorf(unical.CodeConflict, "slug %q changed while it was claimed; retry.", slug)
}

// holdsSlug reports whether the type an index record names still holds
// slug, or may be about to (its record is younger than slugGrace).
func (s *Service) holdsSlug(ctx context.Context, o *slugOwner, slug string) (bool, error) {
	if s.c.Config().Now().Sub(o.ClaimedAt) < slugGrace {
		return true, nil
	}
	t, _, err := readStored[BookingType](ctx, s.store, o.ApplicationID, typesCollection, o.BookingTypeID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return t.Slug == slug, nil
}

// releaseSlug removes slug's index record if it names the type id of
// the application. A failure leaves a stale record, which claimSlug
// takes over.
func (s *Service) releaseSlug(ctx context.Context, slug, id string) {
	ctx = context.WithoutCancel(ctx)
	have, version, err := readStored[slugOwner](ctx, s.store, serverRecords, slugsCollection, slug)
	if err != nil || have.ApplicationID != s.app.ID() || have.BookingTypeID != id {
		return
	}
	_ = s.store.DeleteRecord(ctx, serverRecords, appRecords, slugsCollection, slug, version)
}

// Published is a booking type published at a slug, with the booking
// layer of its application.
type Published struct {
	AppID   string
	Service *Service
	Type    *BookingType
}

// LookupSlug finds the public booking type at slug, on any application
// of c. CodeNotFound, the same for every cause (no such slug, a type
// that is not public, an application or type since deleted), so that a
// caller cannot tell which slugs exist.
func LookupSlug(ctx context.Context, c *unical.Client, slug string) (*Published, error) {
	notFound := unical.Errorf(unical.CodeNotFound, "No booking page here.")
	if CheckSlug(slug) != nil {
		return nil, notFound
	}
	o, _, err := readStored[slugOwner](ctx, c.Store(), serverRecords, slugsCollection, slug)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	app, err := c.App(ctx, o.ApplicationID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	s := New(c, app)
	t, err := s.GetBookingType(ctx, o.BookingTypeID)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	if !t.Public || t.Slug != slug {
		return nil, notFound
	}
	return &Published{AppID: o.ApplicationID, Service: s, Type: t}, nil
}
