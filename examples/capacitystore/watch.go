package capacitystore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
)

// finalSave bounds the save Start makes as it returns.
const finalSave = 5 * time.Second

// Start loads the head (unless Load or Save has), sweeps orphaned parts, and then, until ctx is
// done, merges every head another replica writes, as the watch delivers
// it, and saves every Options.Interval when the Cache recorded something
// since the last save or the head was deleted. When ctx is done it saves
// once more (within 5 seconds) and returns nil. What it cannot return (a
// head it refused, a failed save or watch) goes to Options.Log, and it
// carries on: the Cache keeps learning, and a refused head is merged as
// soon as it is readable again, or written anew once deleted.
//
// Start is a controller-runtime manager.Runnable, and runs on every
// replica, leader or not (NeedLeaderElection): a replica that is not the
// leader keeps up with what the leader learns, and knows it all when it
// takes over. It starts no goroutine of its own; client-go's watch runs
// one while it lasts.
func (s *Store) Start(ctx context.Context) error {
	s.begin(ctx)
	tick := time.NewTicker(s.o.Interval)
	defer tick.Stop()
	for failures := 0; ctx.Err() == nil; {
		if err := s.watch(ctx, tick.C); err != nil && ctx.Err() == nil {
			s.log.Error("capacitystore: watch failed; watching again", "configmap", s.o.Namespace+"/"+s.o.Name, "error", err)
			failures++
			pause(ctx, failures)
			continue
		}
		failures = 0
	}
	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalSave)
	defer cancel()
	s.saveIfPending(final)
	return nil
}

// begin loads the head unless this Store has read or written it already,
// and sweeps orphaned parts.
func (s *Store) begin(ctx context.Context) {
	s.op.Lock()
	defer s.op.Unlock()
	if !s.seen.known {
		if err := s.load(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("capacitystore: cannot load", "error", err)
		}
	}
	s.sweep(ctx)
}

// NeedLeaderElection is false: see Start.
func (s *Store) NeedLeaderElection() bool { return false }

// watch watches the head until ctx is done or the watch ends, saving on
// each tick. The watch starts from the head as it is now, which it
// delivers first, so that nothing written while no watch ran is missed.
func (s *Store) watch(ctx context.Context, tick <-chan time.Time) error {
	w, err := s.configMaps().Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", s.o.Name).String()})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
			s.saveIfPending(ctx)
		case e, ok := <-w.ResultChan():
			if !ok {
				return nil // the API server ends watches from time to time
			}
			if err := s.handle(ctx, e); err != nil {
				return err
			}
		}
	}
}

func (s *Store) saveIfPending(ctx context.Context) {
	s.op.Lock()
	defer s.op.Unlock()
	if !s.pending() {
		return
	}
	if err := s.save(ctx); err != nil {
		s.log.Error("capacitystore: cannot save", "error", err)
	}
}

// handle merges a head another replica wrote, skipping what this Store
// has already merged or written itself, and notes a head deleted.
func (s *Store) handle(ctx context.Context, e watch.Event) error {
	s.op.Lock()
	defer s.op.Unlock()
	switch e.Type {
	case watch.Added, watch.Modified:
		cm, ok := e.Object.(*corev1.ConfigMap)
		if !ok || !s.newer(cm.ResourceVersion) {
			return nil
		}
		err := s.merge(ctx, cm)
		if errors.Is(err, errPartGone) {
			err = s.load(ctx) // replaced since: read what replaced it
		}
		if err != nil && ctx.Err() == nil {
			s.log.Error("capacitystore: cannot merge the head another replica wrote", "error", err)
		}
	case watch.Deleted:
		if cm, ok := e.Object.(*corev1.ConfigMap); ok && !s.newer(cm.ResourceVersion) {
			return nil // this Store has written a head since (a late event)
		}
		s.deleteParts(ctx, s.seen.parts)
		s.seen, s.dirty = head{known: true}, true
	case watch.Error:
		return fmt.Errorf("capacitystore: watching ConfigMap %s/%s: %w", s.o.Namespace, s.o.Name, apierrors.FromObject(e.Object))
	}
	return nil
}

// sweep deletes the parts no head references that are older than
// OrphanAge: what a replica killed between writing a head's parts and the
// head itself left behind. It sweeps nothing while the head is unknown
// or unreadable.
func (s *Store) sweep(ctx context.Context) {
	if !s.seen.known {
		return
	}
	selector := labels.SelectorFromSet(labels.Set{LabelStore: s.o.Name, LabelRole: "part"}).String()
	list, err := s.configMaps().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		s.log.Warn("capacitystore: cannot list parts to sweep", "error", err)
		return
	}
	cutoff := s.o.Now().Add(-OrphanAge)
	var orphans []string
	for _, part := range list.Items {
		if !slices.Contains(s.seen.parts, part.Name) && part.CreationTimestamp.Time.Before(cutoff) {
			orphans = append(orphans, part.Name)
		}
	}
	s.deleteParts(ctx, orphans)
}
