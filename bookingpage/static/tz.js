// The booking page's one script: on a visit without a time zone in its
// address, it loads the page again with the browser's zone, so that the
// times show in the guest's own clock. Without it the page shows the
// booking type's zone, and the guest picks another from the list.
(function () {
  "use strict";
  var u = new URL(window.location.href);
  if (u.searchParams.has("tz") || !window.Intl) {
    return;
  }
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) {
    return;
  }
  u.searchParams.set("tz", zone);
  window.location.replace(u.toString());
})();
