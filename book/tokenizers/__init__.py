"""Reference tokenizers: pure logic, no display, no grading, no files but their own save/load."""
