"""The smartpos app's migrations plus a later one (``MIGRATION_MODULES`` in a test): a
database migrated before an upgrade, as a partner's would be."""
