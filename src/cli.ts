// Placeholder entry until the command line lands (issue 2).
process.stdout.write('gns3-copilot\n');
