package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// Migrated is one AL2 EC2NodeClass's spec.userData moved to the -migrate-to
// family by userdata.Migrate, as Karpenter merges custom userData: the new
// spec.userData (empty when the class needs none), what moved where, what
// was dropped, and what cannot move.
type Migrated struct {
	NodeClass   string   `json:"nodeClass"`
	Where       string   `json:"where"`
	Target      string   `json:"target"`
	Migrated    bool     `json:"migrated"`
	UserData    string   `json:"userData"`
	Moved       []string `json:"moved"`
	Dropped     []string `json:"dropped"`
	Refused     []string `json:"refused"`
	Differences []string `json:"differences"`
}

// migrations migrates the spec.userData of every AL2 EC2NodeClass read.
func migrations(m manifests, target compat.AMIFamily) ([]Migrated, error) {
	out := []Migrated{}
	for _, u := range m.units {
		for _, nc := range u.classes {
			if nc.Family() != compat.AL2 {
				continue
			}
			mg, err := migrateClass(nc, target)
			if err != nil {
				return nil, err
			}
			out = append(out, mg)
		}
	}
	return out, nil
}

// migrateClass migrates one class's userData with the configuration
// Karpenter renders around it.
func migrateClass(nc *nodeClass, target compat.AMIFamily) (Migrated, error) {
	mg := Migrated{NodeClass: nc.Name, Where: nc.at, Target: target.String(), Moved: []string{}, Dropped: []string{}, Refused: []string{}, Differences: []string{}}
	if !nc.HasUserData || strings.TrimSpace(nc.UserData) == "" {
		mg.Migrated = true
		mg.Dropped = append(mg.Dropped, "no spec.userData: Karpenter writes the "+target.String()+" userData itself")
		return mg, nil
	}
	cfg := nc.config()
	cfg.RequiredTaints = requiredTaints()
	m, err := userdata.Migrate([]byte(nc.UserData), target, userdata.MigrateOptions{Merged: &cfg})
	var me *userdata.MigrateError
	if err != nil && !errors.As(err, &me) {
		return mg, fmt.Errorf("EC2NodeClass %s (%s): %w", nc.Name, nc.at, err)
	}
	for _, mv := range m.Moved {
		mg.Moved = append(mg.Moved, fmt.Sprintf("%s%s → %s", lineOfMove(mv.Line), mv.From, mv.To))
	}
	for _, u := range m.Dropped {
		mg.Dropped = append(mg.Dropped, u.String())
	}
	for _, u := range m.Refused {
		mg.Refused = append(mg.Refused, u.String())
	}
	mg.Differences = append(mg.Differences, m.Differences...)
	mg.Migrated = err == nil
	mg.UserData = string(m.UserData)
	return mg, nil
}

func lineOfMove(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("line %d: ", line)
}

// writeMigrations writes the -migrate-to section of the table.
func writeMigrations(b *strings.Builder, ms []Migrated) {
	for _, m := range ms {
		status := "migrated"
		if !m.Migrated {
			status = "cannot migrate"
		}
		fmt.Fprintf(b, "\nEC2NodeClass %s (%s): %s to %s (-migrate-to)\n", m.NodeClass, m.Where, status, m.Target)
		for _, list := range []struct {
			title string
			items []string
		}{{"moved", m.Moved}, {"dropped", m.Dropped}, {"refused", m.Refused}, {"differs", m.Differences}} {
			for _, item := range list.items {
				fmt.Fprintf(b, "  %s: %s\n", list.title, item)
			}
		}
		if m.Migrated && m.UserData != "" {
			fmt.Fprintf(b, "  spec.userData for %s (with amiFamily %s, or the alias %s@latest):\n    userData: |\n%s", m.Target, m.Target, strings.ToLower(m.Target), indent(m.UserData, "      "))
		}
	}
}
