exit 0
exit 1
