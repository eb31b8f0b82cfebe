// Package imip builds and reads calendar invitations sent by email: iTIP
// scheduling messages (RFC 5546: REQUEST, CANCEL, REPLY) carried in
// RFC 5322 mail as iMIP prescribes (RFC 6047).
//
// [Encode] turns one [Invitation] (one event, one recipient) into a mail
// message: a multipart/alternative plain-text and HTML summary together
// with the text/calendar part whose method parameter matches the object's
// METHOD (RFC 6047 §2.4), and the same object again as an invite.ics
// attachment for mail readers that only offer attachments.
//
// [Parse] reads an inbound message (at most [MaxMessageSize] bytes), finds
// its iTIP object and checks what every method needs: one METHOD, VEVENTs
// of one UID, an ORGANIZER, and for a REPLY exactly one ATTENDEE (RFC 5546
// §3.2.3). It decides nothing about events: the caller matches the UID and
// the sender to what it keeps.
//
// MIME is written and read with the standard library (mime/multipart,
// mime/quotedprintable, net/mail): the messages are small and of one
// fixed shape, so a MIME library would add a dependency for little.
//
// References:
//   - RFC 5546, iCalendar Transport-Independent Interoperability Protocol: https://www.rfc-editor.org/rfc/rfc5546
//   - RFC 6047, iCalendar Message-Based Interoperability Protocol: https://www.rfc-editor.org/rfc/rfc6047
//   - RFC 5545, iCalendar: https://www.rfc-editor.org/rfc/rfc5545
package imip
