"""approvals"""
