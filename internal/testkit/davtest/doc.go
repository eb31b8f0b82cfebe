// Package davtest starts real Radicale, Xandikos, Cyrus IMAP and DAViCal
// CalDAV servers on loopback for tests of the CalDAV provider, and records how
// Radicale and Xandikos behave.
//
// # Use
//
// [Start] gives a test a server of its own; [Shared] gives every test of a
// package binary the same server per kind, started on first use and stopped
// by [Main], which the package's TestMain must call:
//
//	func TestMain(m *testing.M) { davtest.Main(m) }
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		s := davtest.Shared(t, davtest.Radicale)
//		cal := s.NewCalendar(t, "work") // a fresh collection for this test
//		...
//	}
//
// A shared server costs its start-up (under a second) once per test binary
// instead of once per test; tests keep apart by working in calendars of
// their own from [Server.NewCalendar]. [Server.Do], [Server.PutObject] and
// [Server.ETag] talk raw HTTP to the server, so tests can set up state and
// check what the server really holds.
//
// The servers come from Debian's packages (scripts/install-test-deps.sh
// installs them). When a binary is missing, tests skip, except with CI=true,
// where they fail. Each server runs in the foreground as a child process,
// its files in a temporary directory and its output in a log that is
// printed when a test fails; it gets SIGTERM (then SIGKILL after 10 s) when
// its test or the test binary is done, and on Linux the kernel kills it if
// the test binary dies first.
//
// # How the servers are started
//
// Radicale 3.1.8: radicale --config FILE, where FILE sets [server] hosts to
// 127.0.0.1 and a free port, [auth] type htpasswd with a plain-text
// htpasswd file and delay 0, [rights] type owner_only, [storage]
// filesystem_folder in the temporary directory and [web] type none. Only the
// named file is read, not /etc/radicale/config.
//
// Xandikos 0.2.8: xandikos --directory DIR --autocreate
// --current-user-principal /unical/ --listen-address SOCKET, listening on a
// Unix socket. Xandikos has no authentication, so davtest puts a Go reverse
// proxy on 127.0.0.1 in front of it that demands the test user's Basic
// credentials on every request and answers 401 otherwise; [Server.URL] is
// the proxy's. The proxy passes the Host header through.
//
// Cyrus IMAP 3.6 (the server Fastmail runs): /usr/lib/cyrus/bin/master
// -C imapd.conf -M cyrus.conf -p master.pid (so that masters of other
// test binaries, which lock /run/cyrus-master.pid, do not stop it) with
// the httpd (CalDAV) and imapd services
// on two free loopback ports, everything it keeps in a folder of its own;
// the user is added with saslpasswd2 and logs in with its plain user name
// (HTTP Basic over SASL PLAIN). One IMAP login at start creates the user's
// INBOX, without which CalDAV will not provision the calendar home
// (principal /dav/principals/user/USER/, home /dav/calendars/user/USER/).
// As root (CI), master runs its services as the cyrus user, which owns the
// folder. Cyrus logs only to syslog. It is in [AllKinds], run by the
// provider's conformance suite, not in the table below.
//
// DAViCal 1.1 (PHP, its data in PostgreSQL): a throwaway PostgreSQL
// cluster from internal/testkit/pgtest, DAViCal's database made there by the
// package's dba/create-database.sh, the test user added as DAViCal's
// admin pages add one (with the home calendar and the scheduling inbox
// and outbox, all three calendars), and caldav.php run by php-cgi for
// each request from a Go CGI host on 127.0.0.1 (DAViCal has no server of
// its own; the host plays Debian's Apache configuration, /.well-known/
// included). php-cgi finds the cluster through PGHOST and PGPORT, so the
// package's /etc/davical/config.php is used unchanged. Principal and home
// are both /caldav.php/USER/. DAViCal keeps calendar-timezone set by
// PROPPATCH but not by MKCALENDAR, and leaves it out of a depth-1
// PROPFIND. It is in [AllKinds], not in the table below.
//
// # Verified behaviour
//
// The tests in this package check each line below against the running
// servers (Radicale 3.1.8 and Xandikos 0.2.8 from Debian 12); the provider
// relies on them. Paths are for the test user "unical".
//
//	                          Radicale 3.1.8                  Xandikos 0.2.8 (behind davtest's proxy)
//	/.well-known/caldav       301 Location: / (GET, PROPFIND;  302 Location: / (GET, PROPFIND);
//	                          also without credentials)       401 without credentials (the proxy)
//	current-user-principal    /unical/                        /unical/
//	calendar-home-set         /unical/                        /unical/calendars/
//	DAV header (OPTIONS)      calendar-access, no              calendar-access, sync-collection
//	                          sync-collection (yet supports it)
//	MKCALENDAR new            201, empty body                 201, body with a misspelt namespace
//	                                                          ("urn:ietf:params:xml:ns:carldav:")
//	MKCALENDAR existing       409 <D:resource-must-be-null/>  207 holding 403 <D:resource-must-be-null/>
//	MKCALENDAR set props      displayname, calendar-color,    displayname only: calendar-color and the
//	                          supported-calendar-component-   component set are ignored (404 in the
//	                          set kept                        response); PROPPATCH the colour afterwards
//	component set             as created (VEVENT)             always VEVENT VTODO VJOURNAL VFREEBUSY
//	PROPPATCH                 207; color, displayname,        207; color, displayname 200;
//	                          description, timezone 200       calendar-description, calendar-timezone 409
//	PROPPATCH with one        (refuses none of these)         applies the others (200) and refuses the
//	property refused                                          one (409), not all or nothing as RFC 4918
//	                                                          §9.2 asks (424 for the others)
//	PROPPATCH remove          207, colour removed             500, colour kept
//	calendar-color
//	MKCALENDAR with           201, kept                       201 listing it as 404, not kept
//	calendar-timezone
//	PROPPATCH href            the collection's path           the request's absolute URL, percent-encoded
//	                                                          ("http%3A//127.0.0.1%3APORT/...")
//	current-user-privilege-   read all write write-content    all
//	set (owner)               write-properties
//	getctag                   CS:getctag, changes on PUT      CS:getctag, changes on PUT
//	PUT If-None-Match: *      201, ETag: strong, quoted       201, ETag: strong, quoted (40 hex)
//	                          (64 hex)
//	PUT over existing with    412                             412
//	If-None-Match: *
//	PUT stale If-Match        412, object unchanged           412, object unchanged
//	PUT current If-Match      201 (not 204), new ETag         204, new ETag
//	GET                       200, same ETag, Content-Type    200, same ETag, Content-Type
//	                          text/calendar; charset=utf-8    text/calendar
//	DELETE stale / current    412 / 200 with multistatus      412 / 204
//	If-Match
//	PUT If-Match: * over an   412 (compares the header's      204
//	existing object           text with its ETag)
//	PUT If-Match: * onto      412                             412
//	nothing
//	object named without      GET 200 text/calendar; with     GET 200 application/octet-stream; with
//	.ics                      Accept: text/calendar 200;      Accept: text/calendar 406; left out of
//	                          found by calendar-query         calendar-query
//	PUT of a whole VCALENDAR  201; one member per UID,        405, nothing stored
//	onto the collection       named <UID>.ics
//	calendar-query            207; recurring series match     207; time-range tested against the
//	time-range                by any instance in range        master's DTSTART/DTEND only: a series is
//	                                                          missed unless its first instance overlaps
//	calendar-query RRULE      only series match               only series match
//	prop-filter
//	sync-collection           207; empty <D:sync-token/> =    207; same
//	                          initial; deletions as 404
//	                          responses; old tokens stay
//	                          valid
//	member created and        reported as removed (404)       left out (it compares the two states,
//	deleted between tokens                                    which RFC 6578 §3.5 allows)
//	sync token                http://radicale.org/ns/sync/    40-hex Git tree id (not a URI); equals
//	                          + 64 hex; equals the            the collection's DAV:sync-token
//	                          collection's DAV:sync-token
//	unknown or malformed      403 <D:error><D:valid-sync-     500 text/plain "Server got itself in
//	sync token                token/></D:error>               trouble" (no valid-sync-token)
//	wrong password / user,    401, WWW-Authenticate: Basic,   401, WWW-Authenticate: Basic,
//	no credentials            nothing written                 nothing written (the proxy)
//
// So, for the provider: treat a 4xx naming valid-sync-token, and on
// Xandikos a 500 to a sync-collection with a token, as an expired token
// (full resync); do not find recurring events on Xandikos by time-range
// alone, but a prop-filter on RRULE finds every series on both; set
// calendar-color with PROPPATCH after MKCALENDAR; send calendar-timezone
// alone, as Xandikos refuses it yet applies what came with it, and do not
// expect Xandikos to keep it; do not remove calendar-color on Xandikos;
// ignore hrefs in PROPPATCH responses; accept 200, 201 and 204 for writes;
// do not send If-Match: * to Radicale; GET objects without an Accept
// header and without relying on their Content-Type; do not expect to see
// a member that came and went between two syncs; a test can fill Radicale
// with one PUT of a whole calendar, Xandikos only object by object.
//
// References: RFC 4791 (CalDAV), RFC 6578 (sync-collection), RFC 6764
// (/.well-known/caldav), RFC 4918 (WebDAV); https://radicale.org/v3.html
// and https://xandikos.org.
package davtest
