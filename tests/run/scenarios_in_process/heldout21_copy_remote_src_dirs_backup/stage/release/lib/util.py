lib
