module github.com/pulumi-helpdesk/pulumi-helpdesk/examples/receivers/go

go 1.21

require github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go v0.3.0
