package outbox

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule is an export's schedule read in its time zone.
type Schedule struct {
	spec  cron.Schedule
	loc   *time.Location
	every time.Duration // of an "@every" schedule, which runs at its multiples since the epoch
}

// ParseSchedule reads job's schedule (five cron fields or a descriptor
// such as "@daily" or "@every 15m") in job.Location (UTC when nil). A TZ=
// or CRON_TZ= prefix is refused: the export's timezone key sets the zone.
func ParseSchedule(job Job) (Schedule, error) { return parseSchedule(job, false) }

// parseSchedule reads a schedule; withSeconds allows a leading seconds
// field (tests).
func parseSchedule(job Job, withSeconds bool) (Schedule, error) {
	spec := strings.TrimSpace(job.Schedule)
	if up := strings.ToUpper(spec); strings.HasPrefix(up, "TZ=") || strings.HasPrefix(up, "CRON_TZ=") {
		// Refused before the parser sees it: robfig/cron panics on a zone
		// prefix without a following field.
		return Schedule{}, fmt.Errorf("schedule %q: remove the TZ= prefix and set the export's timezone instead", job.Schedule)
	}
	parse := cron.ParseStandard
	if withSeconds {
		parse = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor).Parse
	}
	parsed, err := parse(spec)
	if err != nil {
		return Schedule{}, fmt.Errorf("schedule %q: %w", job.Schedule, err)
	}
	s := Schedule{spec: parsed, loc: cmp.Or(job.Location, time.UTC)}
	if every, ok := parsed.(cron.ConstantDelaySchedule); ok {
		s.every = every.Delay
	}
	return s, nil
}

// Next is the schedule's first time after t, in the schedule's zone; zero
// when it has none. When clocks go back, the second pass of a wall-clock
// time that t already showed is not a time of its own: a daily 02:30
// runs once on that day.
func (s Schedule) Next(t time.Time) time.Time {
	if s.every > 0 {
		return t.Truncate(s.every).Add(s.every).In(s.loc)
	}
	t = t.In(s.loc)
	n := s.spec.Next(t)
	if !n.IsZero() && wallClock(n) == wallClock(t) {
		n = s.spec.Next(n)
	}
	return n
}

// wallClock is t's date and time of day to the second, without its zone.
func wallClock(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}
