package booking

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/unical/unical"
	"github.com/unical/unical/availability"
)

// ListBookingTypes lists the application's booking types in id order.
//
// HTTP: GET /v1/bookingTypes
func (s *Service) ListBookingTypes(ctx context.Context, params *ListParams) (*unical.Page[*BookingType], error) {
	return listRecords(ctx, s, "bookingTypes", "", typesCollection, params, func(t *BookingType) string { return t.ID }, nil)
}

// GetBookingType returns a booking type.
//
// HTTP: GET /v1/bookingTypes/{id}
func (s *Service) GetBookingType(ctx context.Context, id string) (*BookingType, error) {
	var t BookingType
	if _, err := s.getRecord(ctx, typesCollection, id, "Booking type", &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// CreateBookingType stores a new booking type: name, durationMinutes and
// participants are required, and the rules are checked as POST
// /v1/availability checks them (CodeInvalid naming the field). A
// participant's scheduleId must name a schedule of the application.
//
// HTTP: POST /v1/bookingTypes
func (s *Service) CreateBookingType(ctx context.Context, params *BookingTypeParams) (*BookingType, error) {
	if params == nil {
		params = &BookingTypeParams{}
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"name", params.Name.IsSet()}, {"durationMinutes", params.DurationMinutes.IsSet()}, {"participants", params.Participants.IsSet()}} {
		if !f.set {
			return nil, unical.FieldError(f.name, "%s is required.", f.name)
		}
	}
	now := s.now()
	t := &BookingType{ID: unical.NewID("bt"), IntervalMinutes: availability.DefaultInterval, TimeZone: "UTC",
		HorizonDays: DefaultHorizonDays, Groups: []availability.Group{}, CreatedAt: now, UpdatedAt: now}
	if err := s.applyType(ctx, t, params); err != nil {
		return nil, err
	}
	if t.Slug != "" {
		if _, err := s.claimSlug(ctx, t.Slug, t.ID); err != nil {
			return nil, err
		}
	}
	if _, err := s.putRecord(ctx, typesCollection, t.ID, t, 0); err != nil {
		if t.Slug != "" {
			s.releaseSlug(ctx, t.Slug, t.ID)
		}
		return nil, err
	}
	return t, nil
}

// UpdateBookingType changes the fields params sets, checked as on a
// create. Holds and bookings already made keep their slots.
//
// HTTP: PUT /v1/bookingTypes/{id}
func (s *Service) UpdateBookingType(ctx context.Context, id string, params *BookingTypeParams) (*BookingType, error) {
	if params == nil {
		params = &BookingTypeParams{}
	}
	// A new slug is claimed before the type names it and the old one
	// released after, so that no moment has two types on one slug.
	claimed := false
	if slug, ok := params.Slug.Get(); ok && slug != "" {
		if err := CheckSlug(slug); err != nil {
			return nil, err
		}
		var err error
		if claimed, err = s.claimSlug(ctx, slug, id); err != nil {
			return nil, err
		}
	}
	oldSlug := ""
	t, err := updateRecord(ctx, s, typesCollection, id, "Booking type", func(t *BookingType) error {
		oldSlug = t.Slug
		if err := s.applyType(ctx, t, params); err != nil {
			return err
		}
		t.UpdatedAt = s.now()
		return nil
	})
	if err != nil {
		if claimed {
			s.releaseSlug(ctx, params.Slug.Value(), id)
		}
		return nil, err
	}
	if oldSlug != "" && oldSlug != t.Slug {
		s.releaseSlug(ctx, oldSlug, id)
	}
	return t, nil
}

// DeleteBookingType removes a booking type. Its bookings stay, and can
// still be listed, read and cancelled.
//
// HTTP: DELETE /v1/bookingTypes/{id}
func (s *Service) DeleteBookingType(ctx context.Context, id string) (*unical.Success, error) {
	t, err := s.GetBookingType(ctx, id)
	if err != nil {
		return nil, err
	}
	ok, err := s.deleteRecord(ctx, typesCollection, id, "Booking type")
	if err != nil {
		return nil, err
	}
	if t.Slug != "" {
		s.releaseSlug(ctx, t.Slug, id)
	}
	return ok, nil
}

// applyType writes params onto t and checks the result.
func (s *Service) applyType(ctx context.Context, t *BookingType, p *BookingTypeParams) error {
	for _, f := range []struct {
		name string
		null bool
	}{
		{"name", p.Name.IsNull()}, {"durationMinutes", p.DurationMinutes.IsNull()}, {"participants", p.Participants.IsNull()},
		{"intervalMinutes", p.IntervalMinutes.IsNull()}, {"timeZone", p.TimeZone.IsNull()}, {"horizonDays", p.HorizonDays.IsNull()},
		{"public", p.Public.IsNull()},
	} {
		if f.null {
			return unical.FieldError(f.name, "%s cannot be null.", f.name)
		}
	}
	p.Name.Apply(&t.Name)
	p.DurationMinutes.Apply(&t.DurationMinutes)
	p.IntervalMinutes.Apply(&t.IntervalMinutes)
	p.TimeZone.Apply(&t.TimeZone)
	p.Participants.Apply(&t.Participants)
	p.Groups.Apply(&t.Groups)
	p.BufferBeforeMinutes.Apply(&t.BufferBeforeMinutes)
	p.BufferAfterMinutes.Apply(&t.BufferAfterMinutes)
	p.MinimumNoticeMinutes.Apply(&t.MinimumNoticeMinutes)
	p.HorizonDays.Apply(&t.HorizonDays)
	p.Limits.Apply(&t.Limits)
	p.Event.Apply(&t.Event)
	p.Public.Apply(&t.Public)
	p.Slug.Apply(&t.Slug)
	p.FrameAncestors.Apply(&t.FrameAncestors)
	if err := checkPublishing(t); err != nil {
		return err
	}
	if t.Groups == nil {
		t.Groups = []availability.Group{}
	}
	if strings.TrimSpace(t.Name) == "" || len(t.Name) > 255 {
		return unical.FieldError("name", "name must be 1 to 255 characters.")
	}
	if t.HorizonDays < 1 || t.HorizonDays > MaxHorizonDays {
		return unical.FieldError("horizonDays", "horizonDays must be between 1 and %d.", MaxHorizonDays)
	}
	if t.Limits.PerDay < 0 || t.Limits.PerWeek < 0 {
		return unical.FieldError("limits", "limits.perDay and limits.perWeek must be 0 (no limit) or more.")
	}
	if len(t.Event.Title) > 1024 {
		return unical.FieldError("event.title", "event.title may be at most 1024 characters.")
	}
	for i, pt := range t.Participants {
		if pt.ScheduleID == "" {
			continue
		}
		f := fmt.Sprintf("participants[%d]", i)
		if pt.WorkingHours != nil {
			return unical.FieldError(f+".scheduleId", "%s names scheduleId and workingHours; name one.", f)
		}
		var sch Schedule
		if _, err := s.getRecord(ctx, schedulesCollection, pt.ScheduleID, "Schedule", &sch); err != nil {
			if unical.ErrorCode(err) == unical.CodeNotFound {
				return unical.FieldError(f+".scheduleId", "%s.scheduleId: schedule %q not found.", f, pt.ScheduleID)
			}
			return err
		}
	}
	// The availability query of a window that holds one slot checks every
	// rule the two share, naming the same fields.
	q := s.availabilityParams(t, nil)
	q.StartDateTime = "2030-01-01T00:00:00Z"
	q.EndDateTime = time.Date(2030, 1, 1, 0, max(t.DurationMinutes, 1), 0, 0, time.UTC).Format(time.RFC3339)
	return availability.Check(q)
}

// availabilityParams is the availability query of a booking type, its
// participants' schedules taken from schedules (nil: none resolved).
func (s *Service) availabilityParams(t *BookingType, schedules map[string]*Schedule) *availability.Params {
	q := &availability.Params{
		DurationMinutes: t.DurationMinutes, IntervalMinutes: t.IntervalMinutes, TimeZone: t.TimeZone,
		BufferBeforeMinutes: t.BufferBeforeMinutes, BufferAfterMinutes: t.BufferAfterMinutes,
		MinimumNoticeMinutes: t.MinimumNoticeMinutes, Groups: t.Groups, MaxResults: availability.MaxResults,
	}
	for _, pt := range t.Participants {
		ap := pt.Participant
		if sch := schedules[pt.ScheduleID]; sch != nil {
			ap.WorkingHours = &availability.WorkingHours{TimeZone: sch.TimeZone, Intervals: sch.Intervals, Overrides: sch.Overrides}
		}
		q.Participants = append(q.Participants, ap)
	}
	return q
}

// ListSchedules lists the application's schedules in id order.
//
// HTTP: GET /v1/schedules
func (s *Service) ListSchedules(ctx context.Context, params *ListParams) (*unical.Page[*Schedule], error) {
	return listRecords(ctx, s, "schedules", "", schedulesCollection, params, func(t *Schedule) string { return t.ID }, nil)
}

// GetSchedule returns a schedule.
//
// HTTP: GET /v1/schedules/{id}
func (s *Service) GetSchedule(ctx context.Context, id string) (*Schedule, error) {
	var sch Schedule
	if _, err := s.getRecord(ctx, schedulesCollection, id, "Schedule", &sch); err != nil {
		return nil, err
	}
	return &sch, nil
}

// CreateSchedule stores a schedule: name, timeZone and intervals are
// required, checked as workingHours of POST /v1/availability.
//
// HTTP: POST /v1/schedules
func (s *Service) CreateSchedule(ctx context.Context, params *ScheduleParams) (*Schedule, error) {
	if params == nil {
		params = &ScheduleParams{}
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"name", params.Name.IsSet()}, {"timeZone", params.TimeZone.IsSet()}, {"intervals", params.Intervals.IsSet()}} {
		if !f.set {
			return nil, unical.FieldError(f.name, "%s is required.", f.name)
		}
	}
	now := s.now()
	sch := &Schedule{ID: unical.NewID("sch"), Overrides: []availability.WorkingHoursOverride{}, CreatedAt: now, UpdatedAt: now}
	if err := applySchedule(sch, params); err != nil {
		return nil, err
	}
	if _, err := s.putRecord(ctx, schedulesCollection, sch.ID, sch, 0); err != nil {
		return nil, err
	}
	return sch, nil
}

// UpdateSchedule changes the fields params sets. Booking types naming the
// schedule use the new hours from their next slot or booking on.
//
// HTTP: PUT /v1/schedules/{id}
func (s *Service) UpdateSchedule(ctx context.Context, id string, params *ScheduleParams) (*Schedule, error) {
	if params == nil {
		params = &ScheduleParams{}
	}
	return updateRecord(ctx, s, schedulesCollection, id, "Schedule", func(sch *Schedule) error {
		if err := applySchedule(sch, params); err != nil {
			return err
		}
		sch.UpdatedAt = s.now()
		return nil
	})
}

// DeleteSchedule removes a schedule. CodeConflict while a booking type
// names it.
//
// HTTP: DELETE /v1/schedules/{id}
func (s *Service) DeleteSchedule(ctx context.Context, id string) (*unical.Success, error) {
	if _, err := s.GetSchedule(ctx, id); err != nil {
		return nil, err
	}
	for t, err := range unical.All(ctx, func(ctx context.Context, token string) (*unical.Page[*BookingType], error) {
		return s.ListBookingTypes(ctx, &ListParams{PageToken: token, Limit: unical.MaxPageSize})
	}) {
		if err != nil {
			return nil, err
		}
		for _, pt := range t.Participants {
			if pt.ScheduleID == id {
				return nil, unical.Errorf(unical.CodeConflict, "Booking type %s uses schedule %s; change it first.", t.ID, id)
			}
		}
	}
	return s.deleteRecord(ctx, schedulesCollection, id, "Schedule")
}

func applySchedule(sch *Schedule, p *ScheduleParams) error {
	for _, f := range []struct {
		name string
		null bool
	}{{"name", p.Name.IsNull()}, {"timeZone", p.TimeZone.IsNull()}, {"intervals", p.Intervals.IsNull()}} {
		if f.null {
			return unical.FieldError(f.name, "%s cannot be null.", f.name)
		}
	}
	p.Name.Apply(&sch.Name)
	p.TimeZone.Apply(&sch.TimeZone)
	p.Intervals.Apply(&sch.Intervals)
	p.Overrides.Apply(&sch.Overrides)
	if sch.Overrides == nil {
		sch.Overrides = []availability.WorkingHoursOverride{}
	}
	if strings.TrimSpace(sch.Name) == "" || len(sch.Name) > 255 {
		return unical.FieldError("name", "name must be 1 to 255 characters.")
	}
	err := availability.Check(&availability.Params{
		Participants:  []availability.Participant{{EndUserAccountID: "schedule", WorkingHours: &availability.WorkingHours{TimeZone: sch.TimeZone, Intervals: sch.Intervals, Overrides: sch.Overrides}}},
		StartDateTime: "2030-01-01T00:00:00Z", EndDateTime: "2030-01-02T00:00:00Z", DurationMinutes: 60,
	})
	var e *unical.Error
	if errors.As(err, &e) && strings.HasPrefix(e.Field, "participants[0].workingHours.") {
		named := *e
		named.Field = strings.TrimPrefix(e.Field, "participants[0].workingHours.")
		named.Message = strings.ReplaceAll(e.Message, "participants[0].workingHours.", "")
		return &named
	}
	return err
}
