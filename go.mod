module github.com/unical/unical

go 1.26.8

require (
	github.com/emersion/go-ical v0.0.0-20250329121855-f41e73efc392 // indirect
	github.com/emersion/go-webdav v0.6.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/standard-webhooks/standard-webhooks/libraries v0.0.1 // indirect
	github.com/teambition/rrule-go v1.8.2 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sys v0.45.0 // indirect
)
