"""Test infrastructure shared by every test folder: the bundle factory (`bundles`)."""
