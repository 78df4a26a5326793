package main

import (
	"covey/agent"
	"covey/memory"
	"covey/session"
	"covey/ui"
)

// customCommands describes the user's slash commands for the TUI.
func customCommands(s *session.Session) []ui.CustomCommand {
	var out []ui.CustomCommand
	for _, c := range s.Commands() {
		out = append(out, ui.CustomCommand{Name: c.Name, ArgumentHint: c.ArgumentHint, Description: c.Summary()})
	}
	return out
}

// skillInfos describes the skills for /skills.
func skillInfos(s *session.Session) []ui.SkillInfo {
	var out []ui.SkillInfo
	for _, k := range s.Skills() {
		info := ui.SkillInfo{Name: k.Name, Description: k.Description, Source: memory.Display(k.Dir, s.Home())}
		if k.AllowedTools.Names != nil {
			info.AllowedTools = append(info.AllowedTools, k.AllowedTools.Names...)
		}
		out = append(out, info)
	}
	return out
}

// memoryInfos describes the memory files in the main agent's context for
// /memory, with their sizes in tokens.
func memoryInfos(s *session.Session) []ui.MemoryInfo {
	var out []ui.MemoryInfo
	for _, f := range s.Memory() {
		out = append(out, ui.MemoryInfo{
			Path: memory.DisplayIn(f.Path, s.Workspace(), s.Home()), Scope: string(f.Scope), Depth: f.Depth,
			ImportedBy: memory.DisplayIn(f.ImportedBy, s.Workspace(), s.Home()), Tokens: agent.EstimateTokens(f.Text),
		})
	}
	return out
}
