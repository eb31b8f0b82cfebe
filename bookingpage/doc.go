// Package bookingpage serves the public booking page of published booking
// types (package booking): /book/{slug} shows a type's name and length,
// a month of days with free slots and the slots of a day in the guest's
// time zone; choosing a slot places a hold while the guest types a name
// and an email, and submitting books it. The confirmation page offers an
// .ics file and signed, single-purpose links to cancel or reschedule,
// which work without an account.
//
// Pages are rendered on the server and work without JavaScript; the one
// script, our own, only sends the browser's time zone on the first visit.
// There are no cookies. Every page forbids caching, and its
// Content-Security-Policy lets only the origins a type lists
// (frameAncestors) embed it. Requests are limited per client address,
// and so are live holds; unknown and unpublished slugs answer the same
// 404.
//
// docs/booking-page.md describes the page for its users.
package bookingpage
