"""One home per domain term: severity, the domain task. Everything else imports from here."""
