package pipeline

import (
	"testing"
	"time"
)

func TestStatsStage(t *testing.T) {
	s := Stats{Stages: []StageTime{{"factorize", 2 * time.Second}, {"train", 5 * time.Second}}}
	if got := s.Stage("train"); got != 5*time.Second {
		t.Errorf("Stage(train) = %v, want 5s", got)
	}
	if got := s.Stage("powers"); got != 0 {
		t.Errorf("Stage(powers) = %v, want 0 for a missing stage", got)
	}
}
