package storedoc

import (
	"github.com/unical/unical"
	"github.com/unical/unical/audit"
)

// AuditPruneLimit bounds how many entries older than the retention one
// AppendAudit removes, so that a backlog goes in several short writes.
const AuditPruneLimit = 100

// CheckAuditEntry refuses an entry without an id, time, actor or
// operation, and ids CheckID refuses. Both stores keep the entry's JSON
// as it is ([unical.AuditEntry] has its tags), so the document is the
// type itself.
func CheckAuditEntry(e *audit.Entry) error {
	if err := CheckID("Audit entry id", e.ID); err != nil {
		return err
	}
	if e.At.IsZero() || e.Actor == "" || e.Operation == "" {
		return unical.Errorf(unical.CodeInvalid, "An audit entry needs a time, an actor and an operation.")
	}
	if e.ApplicationID != "" {
		return CheckID("Application id", e.ApplicationID)
	}
	return nil
}
