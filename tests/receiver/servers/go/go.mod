module receivercases

go 1.21

require github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go v0.0.0

replace github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go => ../../../../receiver/go
