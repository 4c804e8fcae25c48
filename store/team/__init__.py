"""Team triage: members, assignments, the team view."""
