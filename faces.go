package unical

// The Client finds a provider's optional interfaces with faceOf, never
// with a type assertion of its own: a provider wrapped by a
// [ProviderWrapper] (package observe measures calls so) claims every
// optional interface, and only the provider it wraps says which it has.

// unwrapped returns the provider p wraps, through every wrapper.
func unwrapped(p Provider) Provider {
	for {
		w, ok := p.(interface{ Unwrap() Provider })
		if !ok {
			return p
		}
		p = w.Unwrap()
	}
}

// faceOf returns p as the optional interface T when the provider it
// wraps (or p itself) has T; the calls then go through p's wrappers.
func faceOf[T any](p Provider) (T, bool) {
	var zero T
	if _, ok := unwrapped(p).(T); !ok {
		return zero, false
	}
	t, ok := p.(T)
	return t, ok
}

func freeBusyOf(p Provider) (FreeBusyQuerier, bool) { return faceOf[FreeBusyQuerier](p) }

// RefresherOf returns p as a [TokenRefresher] when it has one (package grants).
func RefresherOf(p Provider) (TokenRefresher, bool) { return faceOf[TokenRefresher](p) }

// SplitterOf returns p as a [SeriesSplitter] when it has one (package series).
func SplitterOf(p Provider) (SeriesSplitter, bool) { return faceOf[SeriesSplitter](p) }

// RevokerOf returns p as a [GrantRevoker] when it has one (package grants).
func RevokerOf(p Provider) (GrantRevoker, bool) { return faceOf[GrantRevoker](p) }

// WatcherOf returns p as a [Watcher] when the provider it wraps can push
// changes, for package subscriptions, which starts and renews the watches.
func WatcherOf(p Provider) (Watcher, bool) { return faceOf[Watcher](p) }

// OAuthOf returns p as an [OAuthProvider] when the provider it wraps
// connects accounts through OAuth, for the browser flow of package oauth.
func OAuthOf(p Provider) (OAuthProvider, bool) { return faceOf[OAuthProvider](p) }
