// The table's motion: see static/css/motion.css.
