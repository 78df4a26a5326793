package tools

// ReadTracker records, per agent, the content hash of each file it read.
type ReadTracker struct{}

// FileLocks serialises writes to one file across agents.
type FileLocks struct{}

// TodoList holds the current task list written by todo_write.
type TodoList struct{}
