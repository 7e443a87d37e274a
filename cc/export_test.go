package cc

// SetWRCCTimersNeverIdle makes every WRCC STimer expiry call OnTimer (on)
// or lets the fabric handle those at the line rate (off, the default).
func SetWRCCTimersNeverIdle(on bool) { wrccTimersNeverIdle = on }
