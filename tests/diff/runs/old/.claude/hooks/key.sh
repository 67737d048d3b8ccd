echo key
