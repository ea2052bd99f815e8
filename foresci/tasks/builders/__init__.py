"""One builder per task family; each turns DomainEvidence into public tasks with their hidden targets."""
