"""The foundation every other package stands on: typed settings, the database opener, the YAML reader and the
product's shared vocabulary (severities, scopes, text helpers). It imports no other package of the product."""
