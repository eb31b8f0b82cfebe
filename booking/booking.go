// Package booking is the booking layer of an application (our extension
// of the API): booking types, schedules, slots, holds and bookings that
// turn a free slot into a meeting once, however many requests and
// replicas race for it. It is built on the Client beside the calendar
// domain, like package availability: slots are availability under a
// type's rules, bookings write events through the App, and the records
// (types, schedules, holds, bookings, each participant's ledger of
// claims) live in the Store's records.Store. httpapi serves it under /v1
// and package httpclient calls it over HTTP with the same [API] methods.
//
// docs/scheduling.md#bookings states the guarantee and how it is kept.
package booking

import (
	"context"
	"encoding/json"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
)

// API is every booking operation of one application: the in-process
// [Service] and the HTTP client of package httpclient.
type API interface {
	ListBookingTypes(ctx context.Context, params *ListParams) (*unical.Page[*BookingType], error)
	GetBookingType(ctx context.Context, id string) (*BookingType, error)
	CreateBookingType(ctx context.Context, params *BookingTypeParams) (*BookingType, error)
	UpdateBookingType(ctx context.Context, id string, params *BookingTypeParams) (*BookingType, error)
	DeleteBookingType(ctx context.Context, id string) (*unical.Success, error)

	ListSchedules(ctx context.Context, params *ListParams) (*unical.Page[*Schedule], error)
	GetSchedule(ctx context.Context, id string) (*Schedule, error)
	CreateSchedule(ctx context.Context, params *ScheduleParams) (*Schedule, error)
	UpdateSchedule(ctx context.Context, id string, params *ScheduleParams) (*Schedule, error)
	DeleteSchedule(ctx context.Context, id string) (*unical.Success, error)

	ListSlots(ctx context.Context, bookingTypeID string, params *SlotParams) (*availability.Result, error)
	CreateHold(ctx context.Context, params *HoldParams, opts ...unical.WriteOptions) (*Hold, error)

	CreateBooking(ctx context.Context, params *BookingParams, opts ...unical.WriteOptions) (*Booking, error)
	ListBookings(ctx context.Context, params *BookingListParams) (*unical.Page[*Booking], error)
	GetBooking(ctx context.Context, id string) (*Booking, error)
	CancelBooking(ctx context.Context, id string, opts ...unical.WriteOptions) (*Booking, error)
	RescheduleBooking(ctx context.Context, id string, params *RescheduleParams, opts ...unical.WriteOptions) (*Booking, error)
}

// appRecords is the account id of the application's own records in the
// Store's records.Store (records.Store's account id "").
const appRecords = ""

// Collections of the application's own records.
const (
	typesCollection     = "booking.types"
	schedulesCollection = "booking.schedules"
	holdsCollection     = "booking.holds"
	bookingsCollection  = "booking.bookings"
	// pendingCollection holds the bookings being written: recovery finds
	// the ones whose writer died here.
	pendingCollection = "booking.pending"
)

// Service is the booking layer of one application, in process.
type Service struct {
	c     *unical.Client
	app   *unical.App
	store unical.Store
	// reads is the App for reading accounts and calendars: a memoAPI
	// within one booking or hold.
	reads unical.API
}

var _ API = (*Service)(nil)

// New returns the booking layer of app, whose Client is c.
func New(c *unical.Client, app *unical.App) *Service {
	return &Service{c: c, app: app, store: c.Store(), reads: app}
}

// getRecord reads one of the application's records into v and returns
// its version; CodeNotFound naming what and id when there is none.
func (s *Service) getRecord(ctx context.Context, collection, id, what string, v any) (uint64, error) {
	rec, err := s.store.GetRecord(ctx, s.app.ID(), appRecords, collection, id)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return 0, unical.Errorf(unical.CodeNotFound, "%s %q not found.", what, id)
	}
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(rec.Data, v); err != nil {
		return 0, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return rec.Version, nil
}

// putRecord writes v as one of the application's records when its
// version is ifVersion (0: new).
func (s *Service) putRecord(ctx context.Context, collection, id string, v any, ifVersion uint64) (uint64, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, unical.WrapError(unical.CodeInternal, err, "Internal error.")
	}
	return s.store.PutRecord(ctx, s.app.ID(), appRecords, collection, id, data, ifVersion)
}

// updateRecord reads one of the application's records, lets apply change
// it and writes it back by compare-and-set, again from the read when
// another writer got there first. An error from apply is returned.
func updateRecord[T any](ctx context.Context, s *Service, collection, id, what string, apply func(*T) error) (*T, error) {
	for range casAttempts {
		v := new(T)
		version, err := s.getRecord(ctx, collection, id, what, v)
		if err != nil {
			return nil, err
		}
		if err := apply(v); err != nil {
			return nil, err
		}
		_, err = s.putRecord(ctx, collection, id, v, version)
		if unical.ErrorCode(err) == unical.CodeConflict {
			continue
		}
		if err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, unical.Errorf(unical.CodeConflict, "%s %s changed while it was updated; retry.", what, id)
}

// listRecords pages the application's records of a collection, decoded
// as T, keeping those keep accepts (nil keeps all).
func listRecords[T any](ctx context.Context, s *Service, kind, scope, collection string, params *ListParams, key func(*T) string, keep func(*T) bool) (*unical.Page[*T], error) {
	if params == nil {
		params = &ListParams{}
	}
	return unical.ListStorePage(ctx, s.app, kind, scope, params.PageToken, params.Limit, func(after string, limit int) ([]*T, error) {
		var out []*T
		for len(out) < limit {
			recs, err := s.store.ListRecords(ctx, s.app.ID(), appRecords, collection, "", after, limit)
			if err != nil {
				return nil, err
			}
			for _, rec := range recs {
				v := new(T)
				if err := json.Unmarshal(rec.Data, v); err != nil {
					return nil, unical.WrapError(unical.CodeInternal, err, "Internal error.")
				}
				if keep == nil || keep(v) {
					out = append(out, v)
				}
				after = rec.Key
			}
			if len(recs) < limit {
				break
			}
		}
		if len(out) > limit {
			out = out[:limit]
		}
		return out, nil
	}, key, func(v *T) *T { return v })
}

// deleteRecord removes one of the application's records.
func (s *Service) deleteRecord(ctx context.Context, collection, id, what string) (*unical.Success, error) {
	err := s.store.DeleteRecord(ctx, s.app.ID(), appRecords, collection, id, 0)
	if unical.ErrorCode(err) == unical.CodeNotFound {
		return nil, unical.Errorf(unical.CodeNotFound, "%s %q not found.", what, id)
	}
	if err != nil {
		return nil, err
	}
	return &unical.Success{Success: true}, nil
}

// now is the Client's clock, in UTC and to the second, as records keep
// their times.
func (s *Service) now() time.Time { return s.c.Config().Now().UTC().Truncate(time.Second) }
